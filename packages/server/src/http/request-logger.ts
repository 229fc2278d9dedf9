import type { FastifyBaseLogger } from 'fastify';

type Bindings = Record<string, unknown>;
type ChildOptions = { level?: string; serializers?: unknown };
const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
/** Fastify's logger is pino's: these are pino's too. */
type Pino = FastifyBaseLogger & { isLevelEnabled(level: string): boolean; bindings(): Bindings };

/**
 * The logger of one request, made only when something is logged.
 *
 * Fastify gives every request a child logger bound to its request id; pino builds one by
 * serializing the bindings, which cost more CPU than a small answer whenever nothing is logged
 * (LOG_LEVEL=warn and no failure: the common case under load). This one forwards a call only when
 * the parent logs at that level, and makes pino's child on the first such call: the lines written
 * are exactly the same, with the request id.
 */
class RequestLogger {
  #child: Pino | undefined;

  constructor(
    readonly parent: Pino,
    readonly bindingsOfRequest: Bindings,
  ) {}

  get real(): Pino {
    this.#child ??= this.parent.child(this.bindingsOfRequest) as Pino;
    return this.#child;
  }

  get level(): string {
    return this.#child?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real.level = level;
  }

  isLevelEnabled(level: string): boolean {
    return (this.#child ?? this.parent).isLevelEnabled(level);
  }

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.real.child(bindings, options as never);
  }

  bindings(): Bindings {
    return this.real.bindings();
  }

  silent(): void {}

  declare trace: FastifyBaseLogger['trace'];
  declare debug: FastifyBaseLogger['debug'];
  declare info: FastifyBaseLogger['info'];
  declare warn: FastifyBaseLogger['warn'];
  declare error: FastifyBaseLogger['error'];
  declare fatal: FastifyBaseLogger['fatal'];
}

for (const level of LEVELS) {
  Object.defineProperty(RequestLogger.prototype, level, {
    value(this: RequestLogger, ...args: unknown[]) {
      if (!this.isLevelEnabled(level)) return;
      (this.real[level] as (...a: unknown[]) => void)(...args);
    },
  });
}

/** Fastify's `childLoggerFactory`: a request logger made on first use (options other than the bindings: pino's child at once). */
export function requestLoggerFactory(logger: FastifyBaseLogger, bindings: Bindings, options: ChildOptions): FastifyBaseLogger {
  if (options.level !== undefined || options.serializers !== undefined) return logger.child(bindings, options as never);
  return new RequestLogger(logger as Pino, bindings) as unknown as FastifyBaseLogger;
}
