import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler, preHandlerAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { StoredHeaders } from '../db/schema.js';
import { AppError } from '../http/errors.js';
import { hookList } from '../http/route-hooks.js';
import { etagOf, tagMatches, type WritePolicy, writePolicies } from '../http/write-safety.js';
import { OUTAGE_RETRY_AFTER_SECONDS } from '../lib/outage.js';
import { claimKey, freeKey, heldKey, type KeyClaim, releaseLock, storeAnswer, takeLock } from '../modules/write-safety/repository.js';
import { metrics } from '../lib/metrics.js';

/** How long an answer is replayed (the contract's introduction says 24 hours). */
export const KEY_RETENTION_MS = 24 * 3600_000;
/** How long a claimed key without an answer counts as in flight (then: outcome unknown). */
export const KEY_LEASE_MS = 120_000;
/** A conditional write's lease on its resource (a holder that died loses it then). */
const LOCK_LEASE_MS = 30_000;
/** How long a conditional write waits for another one on the same resource. */
const LOCK_WAIT_MS = 10_000;
/** Response headers kept with a stored answer. */
const KEPT_HEADERS = ['etag', 'location'] as const;

interface HeldClaim {
  scope: string;
  key: string;
  stored: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The `Idempotency-Key` this request holds (claimed, answer not stored yet). */
    idempotency: HeldClaim | null;
    /** The lease a conditional write holds on its resource. */
    resourceLock: { resource: string; holder: string } | null;
    /** A conditional GET, counted against the quota once its answer is known not to be a 304. */
    countUnlessNotModified: boolean;
  }
}

/** The policy of each operation that takes part (see http/write-safety.ts). */
export const policies = writePolicies();

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
const resourcePath = (template: string, params: unknown): string =>
  template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String((params as Record<string, unknown>)[name])));

/** The current ETag of the resource at `path` as the caller of `req` reads it; null when the caller cannot read it. */
async function currentEtag(req: FastifyRequest, path: string): Promise<string | null> {
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

/** JSON with object keys sorted: two bodies that differ only in key order are the same request. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const fileDigest = (path: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('end', () => resolve(hash.digest('base64url')))
      .on('error', reject);
  });

/** What a key is bound to: the operation, path parameters, query and body (files by their digest). */
async function fingerprint(req: FastifyRequest, operationId: string): Promise<string> {
  const files = req.uploads ? await Promise.all(req.uploads.map(async (u) => [u.filename, await fileDigest(u.spooled.path)])) : [];
  const text = canonical([operationId, req.params ?? {}, req.query ?? {}, req.body ?? null, files]);
  return createHash('sha256').update(text).digest('base64url');
}

const inUse = () =>
  new AppError('IDEMPOTENCY_KEY_IN_USE', { retryAfterSeconds: 1 }, 'A request with this Idempotency-Key is still in progress');

/** Claims the request's key, or answers from it (replay, 409, 422). */
async function idempotent(req: FastifyRequest, reply: FastifyReply, operationId: string): Promise<FastifyReply | undefined> {
  const key = req.headers['idempotency-key'];
  if (typeof key !== 'string' || !req.auth) return undefined;
  const claim: KeyClaim = {
    scope: `user:${req.auth.userId}`,
    key,
    operation: operationId,
    fingerprint: await fingerprint(req, operationId),
  };
  const { db } = req.server;
  // A key freed between the claim and the read (its request failed) is claimed again.
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await claimKey(db, claim, KEY_LEASE_MS, KEY_RETENTION_MS)) {
      req.idempotency = { scope: claim.scope, key, stored: false };
      return undefined;
    }
    const held = await heldKey(db, claim.scope, key);
    if (!held) continue;
    if (held.operation !== operationId || held.fingerprint !== claim.fingerprint) {
      throw new AppError('IDEMPOTENCY_KEY_REUSED', {}, 'This Idempotency-Key was used for another request');
    }
    if (held.status !== null && held.body !== null) {
      reply.code(held.status);
      for (const [name, value] of Object.entries(held.headers ?? {})) reply.header(name, value);
      metrics.idempotencyReplays.inc();
      return reply.header('idempotent-replayed', 'true').send(held.body);
    }
    if (held.in_flight) throw inUse();
    throw new AppError(
      'IDEMPOTENCY_OUTCOME_UNKNOWN',
      {},
      'The request with this Idempotency-Key stopped without an answer; its outcome is unknown',
    );
  }
  throw inUse();
}

/** Takes the lease on the resource a conditional write changes, then compares its ETag with `If-Match`. */
async function conditional(req: FastifyRequest, template: string): Promise<void> {
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

/**
 * The end of a JSON success of an operation that takes part (called by the binding with the
 * serialized body): its ETag (304 when `If-None-Match` names it), the resource's new ETag after a
 * write, and the answer stored under the request's `Idempotency-Key`, before it is sent.
 */
export async function finishAnswer(
  req: FastifyRequest,
  reply: FastifyReply,
  policy: WritePolicy,
  code: number,
  body: string,
): Promise<FastifyReply> {
  if (policy.etag) {
    const etag = etagOf(body);
    reply.header('etag', etag);
    const ifNoneMatch = req.headers['if-none-match'];
    // If-None-Match compares weakly (RFC 9110): W/"x" names "x".
    if (typeof ifNoneMatch === 'string' && tagMatches(ifNoneMatch.replace(/W\//g, ''), etag)) return reply.code(304).send();
  }
  reply.type('application/json; charset=utf-8');
  const write = policy.conditional;
  if (write && !write.removes) {
    const etag = write.representation
      ? etagOf(body)
      : req.headers['if-match']
        ? await currentEtag(req, resourcePath(write.resource, req.params))
        : null;
    if (etag) reply.header('etag', etag);
  }
  const claim = req.idempotency;
  if (claim) {
    const headers: StoredHeaders = { 'content-type': 'application/json; charset=utf-8' };
    for (const name of KEPT_HEADERS) {
      const value = reply.getHeader(name);
      if (typeof value === 'string') headers[name] = value;
    }
    try {
      await storeAnswer(req.server.db, claim.scope, claim.key, code, headers, body);
      claim.stored = true;
    } catch (error) {
      // The operation is done: its answer goes out; the key keeps its claim (in flight, then outcome unknown).
      req.log.error({ err: error }, 'the answer of an idempotent request could not be stored');
    }
  }
  return reply.send(body);
}

/**
 * Idempotent retries and conditional writes (the contract's introduction states the rules):
 * hooks on the routes of the operations that take part, driven by the contract.
 */
/** Ends the request's lease on its resource, if it holds one (once). */
async function releaseHeldLock(req: FastifyRequest): Promise<void> {
  const lock = req.resourceLock;
  if (!lock) return;
  req.resourceLock = null;
  await releaseLock(req.server.db, lock.resource, lock.holder).catch((error: unknown) =>
    req.log.warn({ err: error }, 'a resource lock could not be released (its lease ends it)'),
  );
}

export default fp(async function writeSafety(app: FastifyInstance) {
  app.decorateRequest('idempotency', null);
  app.decorateRequest('resourceLock', null);
  app.decorateRequest('countUnlessNotModified', false);
  const count = app.createRateLimit();

  app.addHook('onRoute', (route) => {
    const operationId = (route.schema as { operationId?: string } | undefined)?.operationId;
    const policy = operationId === undefined ? undefined : policies.get(operationId);
    if (!policy || route.method === 'HEAD') return;
    if (policy.etag) {
      route.onResponse = [
        ...hookList(route.onResponse),
        async (req: FastifyRequest, reply: FastifyReply) => {
          if (req.countUnlessNotModified && reply.statusCode !== 304) await count(req).catch(() => undefined);
        },
      ];
    }
    if (!policy.idempotent && !policy.conditional) return;
    const template = policy.conditional?.resource;
    const check: preHandlerAsyncHookHandler = async (req, reply) => {
      if (policy.idempotent) return idempotent(req, reply, operationId!);
      if (template) await conditional(req, template);
      return undefined;
    };
    route.preHandler = [...hookList(route.preHandler), check];
    // A request that did not end with a stored success frees its key: it wrote nothing, and its retry may succeed.
    route.onSend = [
      ...hookList(route.onSend),
      async (req: FastifyRequest, _reply: FastifyReply, payload: unknown) => {
        const claim = req.idempotency;
        if (claim && !claim.stored) {
          req.idempotency = null;
          await freeKey(req.server.db, claim.scope, claim.key).catch((error: unknown) =>
            req.log.warn({ err: error }, 'an idempotency key could not be freed'),
          );
        }
        // The write is over (committed or not): the lease ends before the answer leaves, so the
        // client's next conditional write never waits for it.
        await releaseHeldLock(req);
        return payload;
      },
    ];
    // A request that never reached its answer (the client went away) still ends its lease.
    route.onResponse = [...hookList(route.onResponse), releaseHeldLock];
  });
});
