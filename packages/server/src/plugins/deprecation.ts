import type { FastifyInstance, onSendHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { listOperations, type OperationObject } from '../contract.js';
import { hookList } from '../http/route-hooks.js';

/** What the contract says of a deprecated operation (`deprecated: true` and its extensions). */
export interface DeprecatedOperation {
  operationId: string;
  deprecated?: boolean;
  /** When it was deprecated: an RFC 3339 date or date-time. Required with `deprecated: true`. */
  'x-deprecated-at'?: string;
  /** When it stops answering: an RFC 3339 date or date-time (optional while no date is set). */
  'x-sunset'?: string;
}

function instant(operationId: string, name: string, value: string): number {
  const ms = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(ms)) {
    throw new Error(`${operationId}: ${name} must be an RFC 3339 date or date-time, got ${JSON.stringify(value)}`);
  }
  return ms;
}

/**
 * The headers every answer of a deprecated operation carries: `Deprecation` (RFC 9745, a
 * structured-field date), `Sunset` (RFC 8594, an HTTP-date) when a date is set, and a `Link` with
 * `rel="deprecation"` to the operation's documentation. Undefined for an operation in service.
 * Throws on a deprecated operation whose dates are missing or malformed (a contract error, found
 * at start rather than by a client).
 */
export function deprecationHeaders(operation: DeprecatedOperation): Record<string, string> | undefined {
  if (operation.deprecated !== true) return undefined;
  const { operationId } = operation;
  const since = operation['x-deprecated-at'];
  if (since === undefined) throw new Error(`${operationId}: a deprecated operation needs x-deprecated-at`);
  const headers: Record<string, string> = {
    deprecation: `@${Math.floor(instant(operationId, 'x-deprecated-at', since) / 1000)}`,
    link: `</docs#operation/${encodeURIComponent(operationId)}>; rel="deprecation"; type="text/html"`,
  };
  const sunset = operation['x-sunset'];
  if (sunset !== undefined) {
    const ms = instant(operationId, 'x-sunset', sunset);
    if (ms <= Date.parse(since)) throw new Error(`${operationId}: x-sunset must come after x-deprecated-at`);
    headers.sunset = new Date(ms).toUTCString();
  }
  return headers;
}

export interface DeprecationOptions {
  /** The operations to read deprecations from (default: the contract's). */
  operations?: Iterable<DeprecatedOperation>;
}

/**
 * Deprecation headers on the routes of deprecated operations only, computed once at start: an
 * `onSend` hook on those routes (every answer, errors included), nothing on the others.
 */
export default fp(async function deprecation(app: FastifyInstance, options: DeprecationOptions) {
  const byId = new Map<string, Record<string, string>>();
  const operations = options.operations ?? listOperations().map((o) => o.operation as OperationObject & DeprecatedOperation);
  for (const operation of operations) {
    const headers = deprecationHeaders(operation);
    if (headers) byId.set(operation.operationId, headers);
  }
  if (byId.size === 0) return;
  app.addHook('onRoute', (route) => {
    const operationId = (route.schema as { operationId?: string } | undefined)?.operationId;
    const headers = operationId === undefined ? undefined : byId.get(operationId);
    if (!headers) return;
    const announce: onSendHookHandler = (_req, reply, payload, done) => {
      reply.headers(headers);
      done(null, payload);
    };
    route.onSend = [...hookList(route.onSend), announce];
  });
});
