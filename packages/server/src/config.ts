import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { envSchema } from 'env-schema';

/**
 * The one place that reads the environment. Everything else receives a Config.
 * Values are validated at start; a bad value stops the process with a message naming it.
 */
export interface Config {
  nodeEnv: 'development' | 'test' | 'production';
  host: string;
  port: number;
  logLevel: string;
  /** PostgreSQL connection string; unset means the embedded PGlite. */
  databaseUrl: string | undefined;
  databasePoolSize: number;
  /**
   * Bounds on waiting for PostgreSQL, so that an outage answers 503 quickly instead of hanging:
   * connecting or waiting for a pooled connection, a statement on the server, a reply on the client.
   */
  databaseTimeouts: { connectMs: number; statementMs: number; queryMs: number };
  /** `/ready`: a dependency that does not answer its check within this time counts as down. */
  readinessTimeoutMs: number;
  /** Production runs on PostgreSQL unless the embedded database is asked for explicitly. */
  allowEmbeddedDatabase: boolean;
  /** Do not apply pending migrations at start (they are run by `pnpm db:migrate` instead). */
  skipMigrations: boolean;
  /** Origins allowed to call from a browser; in development local origins are always allowed. */
  corsOrigins: string[];
  /** Password of the administrator `admin:create` makes (prompted for when unset). */
  adminPassword: string | undefined;
  /** PGlite data directory, or `memory://`. */
  pgliteDataDir: string;
  /**
   * Where the bytes of uploaded documents and attachments go: `directory` (files under `dir`, or
   * under a temporary directory of the process when `dir` is null) or `database` (bytea columns).
   */
  fileStore: { kind: 'directory' | 'database'; dir: string | null };
  /** Redis connection string; unset means in-process rate limits, caches and revocation. */
  redisUrl: string | undefined;
  /** Prefix of every Redis key and channel of this deployment. */
  redisPrefix: string;
  jwt: { secret: string; issuer: string; audience: string; accessTtlSeconds: number; refreshTtlSeconds: number };
  /** Seed demo data into an empty database (never in production). */
  seedDemoData: boolean;
  /** Public base address, used in links the API hands out (certificate QR codes). */
  publicBaseUrl: string;
  /** Rate limits per hour. */
  rateLimit: { anonymous: number; user: number; admin: number; windowMs: number };
  /**
   * Login throttle per username, whatever the address: `maxFailures` unsuccessful attempts within
   * `windowMs` lock the username for `lockMs`, doubled at each further lock up to `maxLockMs`;
   * a successful login, or `forgetMs` without attempts, forgets the past locks.
   */
  loginThrottle: { maxFailures: number; windowMs: number; lockMs: number; maxLockMs: number; forgetMs: number };
  /** Largest accepted JSON body. */
  jsonBodyLimitBytes: number;
  // Request hardening: proxies trusted for X-Forwarded-*, the whole multipart request cap, timeouts.
  /** false (default), a hop count, or the proxies' addresses / CIDR ranges. */
  trustProxy: false | number | string[];
  uploadRequestLimitBytes: number;
  timeouts: { requestMs: number; headersMs: number; idleMs: number };
  /** Notification delivery: SMTP server (unset: e-mails stay queued), sender, outbox worker period (0: no background loop). */
  mail: { smtpUrl: string | undefined; from: string; outboxIntervalMs: number; maxAttempts: number };
  /** Period of the sweep of complaint attachments never linked to a complaint (0: no background loop). */
  attachmentSweepIntervalMs: number;
  /** Period of the sweep of expired idempotency keys and stale resource locks (0: no background loop). */
  idempotencySweepIntervalMs: number;
  /** The audit log: days an entry is kept, period of the sweep that removes older ones (0: no background loop). */
  audit: { retentionDays: number; sweepIntervalMs: number };
  /**
   * Positions of transports: how many days they are kept (whole day partitions are dropped past
   * it) and the period of the partition maintenance (made ahead, dropped past retention; it also
   * runs once when the app is ready; 0: only then).
   */
  positions: { retentionDays: number; maintenanceIntervalMs: number };
  /**
   * Live streams (GET /trade/transports/{id}/live): open streams per user (on all instances together) and per instance, the
   * heartbeat period, a stream's longest life, and how long events are kept for resuming clients.
   */
  live: { perUser: number; max: number; heartbeatMs: number; maxStreamMs: number; retentionMinutes: number };
  /**
   * Webhook delivery: first retry delay (doubling, with jitter), answer timeout, how long an
   * endpoint may fail every attempt before it is disabled, whether targets may be private addresses
   * (always true outside production), the worker's polling period (0: no worker at all, tests drive it;
   * otherwise a write answered by this instance also wakes it at once) and how many deliveries one instance sends at once.
   */
  webhooks: {
    retryBaseMs: number;
    timeoutMs: number;
    disableAfterMs: number;
    allowPrivateTargets: boolean;
    requireHttps: boolean;
    pollIntervalMs: number;
    concurrency: number;
    /** Keys that seal signing secrets at rest (modules/webhooks/secrets.ts): the first seals new ones. */
    secretKeys: { id: string; key: string }[];
  };
  /**
   * Period of the fold of appended statistics rows into their totals (0: no background loop; the
   * figures stay exact either way, reads only grow with what is left unfolded).
   */
  statisticsFoldIntervalMs: number;
  /**
   * On SIGTERM/SIGINT: how long requests in flight (uploads included) may take to finish before the
   * process exits; new requests meanwhile get 503 with Retry-After.
   */
  shutdownGraceMs: number;
  /** Sandbox mode (`pnpm sandbox`): in-memory demo database, `POST /sandbox/reset` exists. Never in production. */
  sandbox: boolean;
  /** Bearer token `GET /metrics` requires; unset: no `/metrics` route (404). */
  metricsToken: string | undefined;
  /**
   * OpenTelemetry traces, on when the standard variables ask for an exporter (OTEL_TRACES_EXPORTER
   * other than `none`, or an OTLP endpoint) and OTEL_SDK_DISABLED is not `true`. The SDK reads the
   * other OTEL_* variables itself (protocol, headers, sampler, resource attributes).
   */
  tracing: { enabled: boolean; serviceName: string };
}

/** Documented development key that seals webhook secrets when WEBHOOK_SECRET_KEYS is unset outside production. */
export const DEV_WEBHOOK_SECRET_KEY = 'dev:0pYbdDsJcClQkn4/TFHB9tPvUu86lE54n4tP3Y+SXR0=';

/** Documented development secret: used when JWT_SECRET is unset outside production. */
export const DEV_JWT_SECRET = 'dev-only-secret-change-me-0123456789abcdef';

interface Env {
  NODE_ENV: Config['nodeEnv'];
  HOST: string;
  PORT: number;
  LOG_LEVEL: string;
  DATABASE_URL?: string;
  DATABASE_POOL_SIZE: number;
  DATABASE_CONNECT_TIMEOUT_MS: number;
  DATABASE_STATEMENT_TIMEOUT_MS: number;
  DATABASE_QUERY_TIMEOUT_MS: number;
  READINESS_TIMEOUT_MS: number;
  ALLOW_EMBEDDED_DATABASE: boolean;
  SKIP_MIGRATIONS: boolean;
  CORS_ORIGINS: string;
  ADMIN_PASSWORD?: string;
  PGLITE_DATA_DIR: string;
  FILE_STORE?: 'directory' | 'database';
  FILE_STORE_DIR?: string;
  REDIS_URL?: string;
  REDIS_PREFIX: string;
  JWT_SECRET?: string;
  JWT_ISSUER: string;
  JWT_AUDIENCE: string;
  SEED_DEMO_DATA?: boolean;
  PUBLIC_BASE_URL?: string;
  RATE_LIMIT_ANONYMOUS: number;
  RATE_LIMIT_USER: number;
  RATE_LIMIT_ADMIN: number;
  TRUST_PROXY?: string;
  REQUEST_TIMEOUT_MS: number;
  SMTP_URL?: string;
  MAIL_FROM: string;
  OUTBOX_INTERVAL_MS: number;
  ATTACHMENT_SWEEP_INTERVAL_MS: number;
  IDEMPOTENCY_SWEEP_INTERVAL_MS: number;
  AUDIT_RETENTION_DAYS: number;
  AUDIT_SWEEP_INTERVAL_MS: number;
  POSITION_RETENTION_DAYS: number;
  POSITION_MAINTENANCE_INTERVAL_MS: number;
  LIVE_STREAMS_PER_USER: number;
  LIVE_STREAMS_MAX: number;
  LIVE_RETENTION_MINUTES: number;
  STATISTICS_FOLD_INTERVAL_MS: number;
  SHUTDOWN_GRACE_MS: number;
  SANDBOX?: boolean;
  WEBHOOK_RETRY_BASE_MS: number;
  WEBHOOK_TIMEOUT_MS: number;
  WEBHOOK_DISABLE_AFTER_MS: number;
  WEBHOOK_ALLOW_PRIVATE_TARGETS: boolean;
  WEBHOOK_POLL_INTERVAL_MS: number;
  WEBHOOK_CONCURRENCY: number;
  METRICS_TOKEN?: string;
  OTEL_SDK_DISABLED?: boolean;
  OTEL_TRACES_EXPORTER?: string;
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;
  OTEL_SERVICE_NAME: string;
  WEBHOOK_SECRET_KEYS?: string;
}

const schema = {
  type: 'object',
  properties: {
    NODE_ENV: { type: 'string', enum: ['development', 'test', 'production'], default: 'development' },
    HOST: { type: 'string', default: '127.0.0.1' },
    PORT: { type: 'integer', minimum: 0, maximum: 65535, default: 3000 },
    LOG_LEVEL: { type: 'string', enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info' },
    DATABASE_URL: { type: 'string', pattern: '^postgres(ql)?://' },
    DATABASE_POOL_SIZE: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
    DATABASE_CONNECT_TIMEOUT_MS: { type: 'integer', minimum: 100, maximum: 600_000, default: 3000 },
    DATABASE_STATEMENT_TIMEOUT_MS: { type: 'integer', minimum: 100, maximum: 3_600_000, default: 15_000 },
    DATABASE_QUERY_TIMEOUT_MS: { type: 'integer', minimum: 100, maximum: 3_600_000, default: 20_000 },
    READINESS_TIMEOUT_MS: { type: 'integer', minimum: 100, maximum: 600_000, default: 2000 },
    ALLOW_EMBEDDED_DATABASE: { type: 'boolean', default: false },
    SKIP_MIGRATIONS: { type: 'boolean', default: false },
    ADMIN_PASSWORD: { type: 'string', minLength: 8 },
    CORS_ORIGINS: { type: 'string', pattern: '^(|\\*|https?://[^,\\s]+(,\\s*https?://[^,\\s]+)*)$', default: '' },
    PGLITE_DATA_DIR: { type: 'string', minLength: 1, default: '.data/pglite' },
    FILE_STORE: { type: 'string', enum: ['directory', 'database'] },
    FILE_STORE_DIR: { type: 'string', minLength: 1 },
    REDIS_URL: { type: 'string', pattern: '^rediss?://' },
    REDIS_PREFIX: { type: 'string', minLength: 1, default: 'transport-ops:' },
    JWT_SECRET: { type: 'string', minLength: 32 },
    JWT_ISSUER: { type: 'string', minLength: 1, default: 'transport-ops' },
    JWT_AUDIENCE: { type: 'string', minLength: 1, default: 'transport-ops-api' },
    SEED_DEMO_DATA: { type: 'boolean' },
    PUBLIC_BASE_URL: { type: 'string', pattern: '^https?://' },
    RATE_LIMIT_ANONYMOUS: { type: 'integer', minimum: 1, default: 100 },
    RATE_LIMIT_USER: { type: 'integer', minimum: 1, default: 1000 },
    RATE_LIMIT_ADMIN: { type: 'integer', minimum: 1, default: 5000 },
    TRUST_PROXY: { type: 'string' },
    REQUEST_TIMEOUT_MS: { type: 'integer', minimum: 1000, maximum: 3600_000, default: 120_000 },
    SMTP_URL: { type: 'string', pattern: '^smtps?://' },
    MAIL_FROM: { type: 'string', minLength: 3, default: 'Transport Operations <no-reply@transport-ops.example>' },
    OUTBOX_INTERVAL_MS: { type: 'integer', minimum: 0, default: 5000 },
    ATTACHMENT_SWEEP_INTERVAL_MS: { type: 'integer', minimum: 0, maximum: 86_400_000, default: 3_600_000 },
    IDEMPOTENCY_SWEEP_INTERVAL_MS: { type: 'integer', minimum: 0, maximum: 86_400_000, default: 3_600_000 },
    AUDIT_RETENTION_DAYS: { type: 'integer', minimum: 1, maximum: 36_500, default: 365 },
    AUDIT_SWEEP_INTERVAL_MS: { type: 'integer', minimum: 0, maximum: 86_400_000, default: 3_600_000 },
    POSITION_RETENTION_DAYS: { type: 'integer', minimum: 8, maximum: 36_500, default: 90 },
    POSITION_MAINTENANCE_INTERVAL_MS: { type: 'integer', minimum: 0, maximum: 86_400_000, default: 3_600_000 },
    LIVE_STREAMS_PER_USER: { type: 'integer', minimum: 1, maximum: 1000, default: 5 },
    LIVE_STREAMS_MAX: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 1000 },
    LIVE_RETENTION_MINUTES: { type: 'integer', minimum: 5, maximum: 10_080, default: 60 },
    STATISTICS_FOLD_INTERVAL_MS: { type: 'integer', minimum: 0, maximum: 3_600_000, default: 1000 },
    SHUTDOWN_GRACE_MS: { type: 'integer', minimum: 0, maximum: 3_600_000, default: 30_000 },
    SANDBOX: { type: 'boolean' },
    WEBHOOK_RETRY_BASE_MS: { type: 'integer', minimum: 10, maximum: 3_600_000, default: 30_000 },
    WEBHOOK_TIMEOUT_MS: { type: 'integer', minimum: 100, maximum: 60_000, default: 10_000 },
    WEBHOOK_DISABLE_AFTER_MS: { type: 'integer', minimum: 1000, maximum: 30 * 86_400_000, default: 5 * 86_400_000 },
    WEBHOOK_ALLOW_PRIVATE_TARGETS: { type: 'boolean', default: false },
    WEBHOOK_POLL_INTERVAL_MS: { type: 'integer', minimum: 0, maximum: 3_600_000, default: 1000 },
    WEBHOOK_CONCURRENCY: { type: 'integer', minimum: 1, maximum: 200, default: 20 },
    METRICS_TOKEN: { type: 'string', minLength: 16, pattern: '^[\\x21-\\x7e]+$' },
    OTEL_SDK_DISABLED: { type: 'boolean' },
    OTEL_TRACES_EXPORTER: { type: 'string' },
    OTEL_EXPORTER_OTLP_ENDPOINT: { type: 'string', pattern: '^https?://' },
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: { type: 'string', pattern: '^https?://' },
    OTEL_SERVICE_NAME: { type: 'string', minLength: 1, default: 'transport-ops-api' },
    WEBHOOK_SECRET_KEYS: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/]{43}=(,[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/]{43}=)*$' },
  },
} as const;

/** A configuration mistake, told in one line: the variable, the rule and the accepted values. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

interface EnvIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** Variables whose value is never printed (a wrong one may still be the real secret, mistyped). */
const SECRETS = new Set(['JWT_SECRET', 'ADMIN_PASSWORD', 'METRICS_TOKEN', 'WEBHOOK_SECRET_KEYS']);
/** Connection strings: printed without the password they may carry. */
const URLS = new Set(['DATABASE_URL', 'REDIS_URL', 'SMTP_URL']);

/** What a wrong value is shown as in a configuration error. */
export function shownValue(name: string, value: unknown): string {
  if (SECRETS.has(name)) return `a value of ${String(value).length} characters`;
  if (URLS.has(name)) return JSON.stringify(String(value).replace(/\/\/([^/@]*):[^/@]*@/, '//$1:***@'));
  return JSON.stringify(value);
}

function describeIssue(issue: EnvIssue, env: Record<string, unknown>): string {
  const name = issue.instancePath.replace(/^\//, '');
  const property = (schema.properties as Record<string, { pattern?: string }>)[name];
  const got = name in env ? ` (got ${shownValue(name, env[name])})` : '';
  switch (issue.keyword) {
    case 'enum':
      return `${name} must be one of: ${(issue.params.allowedValues as unknown[]).join(', ')}${got}`;
    case 'pattern':
      return `${name} must match ${property?.pattern ?? String(issue.params.pattern)}${got}`;
    case 'type':
      return `${name} must be ${issue.params.type === 'boolean' ? 'true or false' : `an ${String(issue.params.type)}`}${got}`;
    default:
      return `${name} ${issue.message ?? 'is invalid'}${got}`;
  }
}

/**
 * Reads the configuration from `env` (by default the process environment, completed by a `.env`
 * file in the working directory when there is one: variables already set win).
 * Throws a ConfigError naming every wrong variable.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, options: { signsTokens?: boolean } = {}): Config {
  let e: Env;
  try {
    e = envSchema<Env>({ schema, data: { ...env }, env: env === process.env, dotenv: env === process.env && { quiet: true } });
  } catch (error) {
    const issues = (error as { errors?: EnvIssue[] }).errors;
    if (!issues) throw error;
    throw new ConfigError(`Configuration error: ${issues.map((i) => describeIssue(i, env)).join('; ')}`);
  }
  const production = e.NODE_ENV === 'production';
  // The database commands (`db:migrate`, `db:seed`, `admin:create`) sign no token: they run without it.
  if (production && !e.JWT_SECRET && options.signsTokens !== false) {
    throw new ConfigError('Configuration error: JWT_SECRET is required in production (at least 32 characters)');
  }
  if (production && !e.WEBHOOK_SECRET_KEYS) {
    throw new ConfigError(
      'Configuration error: WEBHOOK_SECRET_KEYS is required in production (kid:base64 of 32 random bytes, comma-separated)',
    );
  }
  if (production && !e.DATABASE_URL && !e.ALLOW_EMBEDDED_DATABASE) {
    throw new ConfigError(
      'Configuration error: DATABASE_URL is required in production (postgres://...); set ALLOW_EMBEDDED_DATABASE=true to run on the embedded database instead',
    );
  }
  if (e.SANDBOX && (production || e.DATABASE_URL)) {
    throw new ConfigError('Configuration error: SANDBOX runs only outside production, on the embedded database (unset DATABASE_URL)');
  }
  return {
    nodeEnv: e.NODE_ENV,
    host: e.HOST,
    port: e.PORT,
    logLevel: e.LOG_LEVEL,
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    readinessTimeoutMs: e.READINESS_TIMEOUT_MS,
    databaseTimeouts: {
      connectMs: e.DATABASE_CONNECT_TIMEOUT_MS,
      statementMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
      queryMs: e.DATABASE_QUERY_TIMEOUT_MS,
    },
    allowEmbeddedDatabase: e.ALLOW_EMBEDDED_DATABASE,
    skipMigrations: e.SKIP_MIGRATIONS,
    adminPassword: e.ADMIN_PASSWORD,
    corsOrigins: e.CORS_ORIGINS.split(',')
      .map((o) => o.trim())
      .filter(Boolean),
    pgliteDataDir: e.PGLITE_DATA_DIR,
    fileStore: fileStore(e),
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REDIS_PREFIX,
    jwt: {
      secret: e.JWT_SECRET ?? DEV_JWT_SECRET,
      issuer: e.JWT_ISSUER,
      audience: e.JWT_AUDIENCE,
      accessTtlSeconds: 3600,
      refreshTtlSeconds: 7 * 24 * 3600,
    },
    seedDemoData: !production && (e.SEED_DEMO_DATA ?? true),
    publicBaseUrl: e.PUBLIC_BASE_URL ?? `http://${e.HOST}:${e.PORT}`,
    rateLimit: { anonymous: e.RATE_LIMIT_ANONYMOUS, user: e.RATE_LIMIT_USER, admin: e.RATE_LIMIT_ADMIN, windowMs: 3600_000 },
    loginThrottle: { maxFailures: 5, windowMs: 15 * 60_000, lockMs: 60_000, maxLockMs: 3600_000, forgetMs: 24 * 3600_000 },
    jsonBodyLimitBytes: 10 * 1024 * 1024,
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    uploadRequestLimitBytes: 50 * 1024 * 1024,
    timeouts: { requestMs: e.REQUEST_TIMEOUT_MS, headersMs: 10_000, idleMs: 30_000 },
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM, outboxIntervalMs: e.OUTBOX_INTERVAL_MS, maxAttempts: 5 },
    attachmentSweepIntervalMs: e.ATTACHMENT_SWEEP_INTERVAL_MS,
    idempotencySweepIntervalMs: e.IDEMPOTENCY_SWEEP_INTERVAL_MS,
    audit: { retentionDays: e.AUDIT_RETENTION_DAYS, sweepIntervalMs: e.AUDIT_SWEEP_INTERVAL_MS },
    positions: { retentionDays: e.POSITION_RETENTION_DAYS, maintenanceIntervalMs: e.POSITION_MAINTENANCE_INTERVAL_MS },
    live: {
      perUser: e.LIVE_STREAMS_PER_USER,
      max: e.LIVE_STREAMS_MAX,
      heartbeatMs: 15_000,
      maxStreamMs: 30 * 60_000,
      retentionMinutes: e.LIVE_RETENTION_MINUTES,
    },
    statisticsFoldIntervalMs: e.STATISTICS_FOLD_INTERVAL_MS,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    sandbox: e.SANDBOX ?? false,
    metricsToken: e.METRICS_TOKEN,
    tracing: { enabled: tracingEnabled(e), serviceName: e.OTEL_SERVICE_NAME },
    webhooks: {
      retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      disableAfterMs: e.WEBHOOK_DISABLE_AFTER_MS,
      // Outside production, local receivers (a developer's, QA's in the sandbox) must work.
      allowPrivateTargets: !production || e.WEBHOOK_ALLOW_PRIVATE_TARGETS,
      requireHttps: production,
      pollIntervalMs: e.WEBHOOK_POLL_INTERVAL_MS,
      concurrency: e.WEBHOOK_CONCURRENCY,
      secretKeys: (e.WEBHOOK_SECRET_KEYS ?? DEV_WEBHOOK_SECRET_KEY).split(',').map((entry) => {
        const [id, key] = entry.split(':') as [string, string];
        return { id, key };
      }),
    },
  };
}

/** Traces are exported when an exporter is named (not `none`) or an OTLP endpoint is given, unless the SDK is disabled. */
function tracingEnabled(e: Env): boolean {
  if (e.OTEL_SDK_DISABLED) return false;
  const exporters = (e.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (exporters.length > 0) return !exporters.includes('none');
  return Boolean(e.OTEL_EXPORTER_OTLP_ENDPOINT || e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * FILE_STORE: `directory` by default on the embedded database (under `<PGLITE_DATA_DIR>/files`),
 * since bytes written into the in-process database hold up every other request while they are
 * copied; `database` by default on PostgreSQL, so that several instances share the files without a
 * shared volume, and on an in-memory embedded database (its bytes vanish with the process anyway).
 */
function fileStore(e: Env): Config['fileStore'] {
  const inMemory = e.PGLITE_DATA_DIR.startsWith('memory://');
  const kind = e.FILE_STORE ?? (e.DATABASE_URL || inMemory ? 'database' : 'directory');
  if (e.FILE_STORE_DIR) return { kind, dir: e.FILE_STORE_DIR };
  if (kind === 'directory' && e.DATABASE_URL) {
    throw new ConfigError(
      'Configuration error: FILE_STORE_DIR is required with FILE_STORE=directory on PostgreSQL (a directory every instance shares)',
    );
  }
  return { kind, dir: e.DATABASE_URL || inMemory ? null : join(e.PGLITE_DATA_DIR, 'files') };
}

/**
 * TRUST_PROXY: unset, empty or `false` trusts no proxy (X-Forwarded-For is ignored, the socket's
 * address counts); a number trusts that many hops; otherwise a comma-separated list of proxy
 * addresses or CIDR ranges. `true` (trust anyone) is refused: any client could then pick its IP.
 */
export function parseTrustProxy(value: string | undefined): false | number | string[] {
  const text = (value ?? '').trim();
  if (text === '' || text === 'false' || text === '0') return false;
  if (text.toLowerCase() === 'true' || text === '*') {
    throw new ConfigError(
      `Configuration error: TRUST_PROXY=${text} is refused (any client could choose its address and escape the rate limits): give the number of proxies in front of the server, or their addresses or CIDR ranges`,
    );
  }
  if (/^\d+$/.test(text)) return Number(text);
  const entries = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [address, bits, extra] = entry.split('/');
    const family = isIP(address ?? '');
    const maxBits = family === 4 ? 32 : 128;
    if (family === 0 || extra !== undefined || (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= maxBits))) {
      throw new ConfigError(
        `Configuration error: TRUST_PROXY must be a hop count, or IP addresses or CIDR ranges separated by commas (got ${JSON.stringify(entry.slice(0, 100))})`,
      );
    }
  }
  return entries;
}

/** A configuration for tests: in-memory database unless DATABASE_URL is given, random secret. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  // FILE_STORE=directory runs the tests with file bytes in a temporary directory instead of the database.
  const fileStore = process.env.FILE_STORE ? { FILE_STORE: process.env.FILE_STORE } : {};
  const base = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', PGLITE_DATA_DIR: 'memory://', ...fileStore });
  // No background outbox loop in tests: they drive it with app.processOutboxOnce().
  const mail = Object.assign({}, base.mail, { outboxIntervalMs: 0 });
  // A loaded test machine can take seconds to answer the readiness probe's query: that is not an outage.
  const readinessTimeoutMs = 60_000;
  // Nor a background sweep of old pending uploads: tests call app.sweepUnlinkedAttachments() with their own clock.
  const attachmentSweepIntervalMs = 0;
  // Nor a webhook worker: tests that deliver turn it on (or call app.deliverWebhooksOnce()).
  const webhooks = Object.assign({}, base.webhooks, { pollIntervalMs: 0 });
  // Nor a background fold: statistics are read from folded totals plus appended rows, and tests fold
  // with app.foldStatisticsOnce() where they check both.
  const statisticsFoldIntervalMs = 0;
  return Object.assign(
    {},
    base,
    {
      jwt: Object.assign({}, base.jwt, { secret: randomBytes(32).toString('hex') }),
      mail,
      attachmentSweepIntervalMs,
      idempotencySweepIntervalMs: 0,
      audit: Object.assign({}, base.audit, { sweepIntervalMs: 0 }),
      statisticsFoldIntervalMs,
      readinessTimeoutMs,
      webhooks,
    },
    overrides,
  );
}
