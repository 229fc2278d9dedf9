import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import { metrics } from '../../lib/metrics.js';
import { OUTAGE_RETRY_AFTER_SECONDS } from '../../lib/outage.js';
import { AppError } from '../errors.js';
import { tagMatches } from './policy.js';
import { releaseLock, takeLock } from './repository.js';

/** A conditional write's lease on its resource (a holder that died loses it then). */
const LOCK_LEASE_MS = 30_000;
/** How long a conditional write waits for another one on the same resource. */
const LOCK_WAIT_MS = 10_000;

declare module 'fastify' {
  interface FastifyRequest {
    /** The lease a conditional write holds on its resource. */
    resourceLock: { resource: string; holder: string } | null;
    /** A conditional GET, counted against the quota once its answer is known not to be a 304. */
    countUnlessNotModified: boolean;
  }
}

/*
 * The server reads a resource's current ETag by asking itself for its GET, as the caller (the
 * same credentials), so the tag is exactly the one the caller was sent. Those requests carry
 * this process's secret in a header: they are not counted against the caller's quota.
 */
const INTERNAL_HEADER = 'x-transport-ops-internal';
const INTERNAL_TOKEN = randomBytes(24).toString('base64url');

/** A request the server made to itself (reading a resource's current ETag). */
export const isInternal = (req: FastifyRequest): boolean => req.headers[INTERNAL_HEADER] === INTERNAL_TOKEN;

/** The resource's path with the request's path parameters filled in. */
export const resourcePath = (template: string, params: unknown): string =>
  template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String((params as Record<string, unknown>)[name])));

/** The current ETag of the resource at `path` as the caller of `req` reads it; null when the caller cannot read it. */
export async function currentEtag(req: FastifyRequest, path: string): Promise<string | null> {
  const headers: Record<string, string> = { [INTERNAL_HEADER]: INTERNAL_TOKEN };
  for (const name of ['authorization', 'x-api-key']) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const res = await req.server.inject({ method: 'GET', url: path, headers });
  const etag = res.headers.etag;
  return res.statusCode === 200 && typeof etag === 'string' ? etag : null;
}

/**
 * The limiter of a GET that sends an ETag: a 304 costs no quota (as on GitHub). A request with
 * `If-None-Match` is refused only when the quota is already spent (the count is read, not
 * raised), and counted after its answer unless that answer is a 304; one the server makes to
 * itself is not counted. Other requests go through `limiter` as usual.
 */
export function conditionalLimiter(app: FastifyInstance, limiter: onRequestHookHandler): onRequestHookHandler {
  const check = app.createRateLimit();
  return function conditionalLimit(this: FastifyInstance, req, reply, done) {
    if (req.headers['if-none-match'] === undefined) return limiter.call(this, req, reply, done);
    if (isInternal(req)) return done();
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

/** Takes the lease on the resource a conditional write changes, then compares its ETag with `If-Match`. */
export async function conditional(req: FastifyRequest, template: string): Promise<void> {
  const ifMatch = req.headers['if-match'];
  if (typeof ifMatch !== 'string') return;
  const resource = resourcePath(template, req.params);
  const holder = randomUUID();
  const deadline = Date.now() + LOCK_WAIT_MS;
  while (!(await takeLock(req.server.db, resource, holder, LOCK_LEASE_MS))) {
    if (Date.now() > deadline) {
      throw new AppError('SERVICE_UNAVAILABLE', { retryAfterSeconds: OUTAGE_RETRY_AFTER_SECONDS }, 'The resource is busy, retry');
    }
    await sleep(15);
  }
  req.resourceLock = { resource, holder };
  const etag = await currentEtag(req, resource);
  if (etag === null || !tagMatches(ifMatch, etag)) {
    metrics.preconditionFailures.inc();
    throw new AppError('PRECONDITION_FAILED', { resource }, 'The resource changed since it was read');
  }
}

/** Ends the request's lease on its resource, if it holds one (once). */
export async function releaseHeldLock(req: FastifyRequest): Promise<void> {
  const lock = req.resourceLock;
  if (!lock) return;
  req.resourceLock = null;
  await releaseLock(req.server.db, lock.resource, lock.holder).catch((error: unknown) =>
    req.log.warn({ err: error }, 'a resource lock could not be released (its lease ends it)'),
  );
}
