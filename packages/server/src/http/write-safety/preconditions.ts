import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { metrics } from '../../lib/metrics.js';
import { AppError } from '../errors.js';
import { type Conditional, tagMatches } from './policy.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** A conditional GET, counted against the quota once its answer is known not to be a 304. */
    countUnlessNotModified: boolean;
  }
}

/** The resource's path with the request's path parameters filled in. */
export const resourcePath = (template: string, params: unknown): string =>
  template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String((params as Record<string, unknown>)[name])));

/**
 * The limiter of a GET that sends an ETag: a 304 costs no quota (as on GitHub). A request with
 * `If-None-Match` is refused only when the quota is already spent (the count is read, not
 * raised), and counted after its answer unless that answer is a 304. Other requests go through
 * `limiter` as usual.
 */
export function conditionalLimiter(app: FastifyInstance, limiter: onRequestHookHandler): onRequestHookHandler {
  const check = app.createRateLimit();
  return function conditionalLimit(this: FastifyInstance, req, reply, done) {
    if (req.headers['if-none-match'] === undefined) return limiter.call(this, req, reply, done);
    check(req, { increment: false }).then((state) => {
      if (state.isAllowed) return done();
      reply.header('x-ratelimit-limit', state.max).header('x-ratelimit-remaining', state.remaining);
      reply.header('x-ratelimit-reset', state.ttlInSeconds);
      if (state.remaining > 0) {
        req.countUnlessNotModified = true;
        return done();
      }
      const retryAfterSeconds = Math.max(1, state.ttlInSeconds);
      done(
        new AppError('RATE_LIMITED', { limit: state.max, retryAfterSeconds }, `Rate limit exceeded, retry in ${retryAfterSeconds} seconds`),
      );
    }, done);
  };
}

/** The `If-Match` of a request to a conditional write, when it sends one. */
export const ifMatchOf = (req: FastifyRequest, conditional: Conditional | null): string | null => {
  const value = req.headers['if-match'];
  return conditional && typeof value === 'string' ? value : null;
};

/**
 * Runs a conditional write (`run`) under its `If-Match`, inside the request transaction that
 * writes its rows (answer.ts opens it):
 *
 * 1. the resource's main row locked (`SELECT … FOR UPDATE`, representations.ts), so that no
 *    other write of it, conditional or not, runs between this check and this write: they are one
 *    step, and the lock ends with the COMMIT or ROLLBACK. `If-Match: *` asks only that the
 *    resource exist: the lock says it, nothing is read or hashed;
 * 2. otherwise the resource's current ETag, from its representation as its GET gives it to this
 *    caller, read with the row locked (by the read's own statement where the resource kind can;
 *    no request to the server itself, no quota). The handler may use that read as its own load
 *    (`lockedRepresentation`);
 * 3. the write itself;
 * 4. the comparison. Preconditions come after existence and permission (RFC 9110 §13.2.1: a
 *    request that would fail without them fails as it would): the write runs first, so a 404,
 *    403 or any other failure of it is the answer; only a write that would have succeeded is
 *    refused with 412, and its transaction is rolled back (nothing changed).
 */
export async function underPrecondition<T>(
  req: FastifyRequest,
  reply: FastifyReply,
  conditional: Conditional,
  ifMatch: string,
  run: () => Promise<T>,
): Promise<T> {
  const kinds = req.server.resourceKinds;
  let matches: boolean;
  if (ifMatch.trim() === '*') matches = await kinds.lockExisting(req, conditional.resource);
  else {
    const etag = await kinds.currentEtag(req, reply, conditional.resource, { forUpdate: true });
    matches = etag !== null && tagMatches(ifMatch, etag);
  }
  const value = await run();
  if (!matches) {
    metrics.preconditionFailures.inc();
    throw new AppError(
      'PRECONDITION_FAILED',
      { resource: resourcePath(conditional.resource, req.params) },
      'The resource changed since it was read',
    );
  }
  return value;
}
