/** Seconds a client is told to wait (`Retry-After`) when a dependency is down. */
export const OUTAGE_RETRY_AFTER_SECONDS = 5;

// Socket-level failures: the server is down, unreachable or dropped the connection.
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ECONNABORTED',
]);

// PostgreSQL SQLSTATEs of an unavailable server: connection exceptions (class 08), shutting
// down or starting up (57P01-57P03), too many connections (53300), statement_timeout (57014).
const PG_OUTAGE = (code: string) => code.startsWith('08') || ['57P01', '57P02', '57P03', '53300', '57014'].includes(code);

// What pg, pg-pool and ioredis say when they give up waiting or lose their connection.
const MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /^Query read timeout/,
  /is not queryable/,
  /^Client was closed and is not queryable/,
  /^Connection is closed/,
  /^Stream isn't writeable/,
  /^Reached the max retries per request limit/,
  /^Command timed out/,
];

/**
 * True when the error says that a dependency (the database, Redis) is down, unreachable or
 * stalled, rather than that the request or the code is wrong: such a request answers 503 with
 * `Retry-After`, not 500. Looks through `cause` chains and aggregated errors.
 */
export function isDependencyOutage(error: unknown, depth = 0): boolean {
  if (depth > 5 || error === null || typeof error !== 'object') return false;
  const e = error as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown; name?: unknown };
  if (typeof e.code === 'string' && (NETWORK_CODES.has(e.code) || (/^[0-9A-Z]{5}$/.test(e.code) && PG_OUTAGE(e.code)))) return true;
  if (e.name === 'MaxRetriesPerRequestError') return true;
  if (typeof e.message === 'string' && MESSAGES.some((m) => m.test(e.message as string))) return true;
  if (Array.isArray(e.errors) && e.errors.some((inner) => isDependencyOutage(inner, depth + 1))) return true;
  return isDependencyOutage(e.cause, depth + 1);
}
