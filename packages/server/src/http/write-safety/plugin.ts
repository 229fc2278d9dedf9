import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler, preHandlerAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { hookList } from '../route-hooks.js';
import { claimOrAnswer, releaseReservation, reserveKey } from './keys.js';
import { writePolicies } from './policy.js';
import { conditional, releaseHeldLock } from './preconditions.js';
import { freeKey, type KeyClaim, storeAnswer } from './repository.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The `Idempotency-Key` this request holds (claimed; its answer not sent yet). */
    idempotency: KeyClaim | null;
    /** The answer under the key was stored with the operation's rows. */
    idempotencyOutcome: 'stored' | null;
    /** The mark of the request's key as running in this process (keys.ts). */
    keyReservation: string | null;
  }
}

/** The policy of each operation that takes part (see policy.ts). */
export const policies = writePolicies();

/**
 * Answers produced before the operation began executing, or that ask for the retry: not stored,
 * and the key is freed (the contract's introduction, "Idempotent retries"). 400 validation,
 * 401/403, 429; 503 and 507 carry Retry-After (the database or the storage failed: whether a
 * COMMIT happened is unknown to this request, and the key says it, see keys.ts).
 */
const NOT_STORED = new Set([400, 401, 403, 429, 503, 507]);

/** Stores the error answer of a request that wrote nothing, or frees its key (after the rollback). */
async function settleKey(req: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<void> {
  if (req.keyReservation) releaseReservation(req.keyReservation);
  req.keyReservation = null;
  const claim = req.idempotency;
  if (!claim) return;
  req.idempotency = null;
  if (req.idempotencyOutcome === 'stored') return;
  const { db } = req.server;
  const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
  try {
    if (
      body !== null &&
      reply.statusCode >= 400 &&
      !NOT_STORED.has(reply.statusCode) &&
      reply.getHeader('content-encoding') === undefined
    ) {
      await storeAnswer(db, claim, reply.statusCode, { 'content-type': 'application/json; charset=utf-8' }, body);
    } else {
      await freeKey(db, claim);
    }
  } catch (error) {
    // The key keeps its claim: a retry here takes it over at once, elsewhere once its lease ends.
    req.log.warn({ err: error }, 'the outcome of an idempotent request could not be recorded');
  }
}

/**
 * Idempotent retries and conditional writes (the contract's introduction states the rules):
 * hooks on the routes of the operations that take part, driven by the contract. The operation
 * itself runs under its key in answer.ts, called by the binding.
 */
export default fp(async function writeSafety(app: FastifyInstance) {
  app.decorateRequest('idempotency', null);
  app.decorateRequest('idempotencyOutcome', null);
  app.decorateRequest('keyReservation', null);
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
    if (policy.idempotent) {
      // After identification and the role check: a refused request never marks its key.
      const reserve: onRequestHookHandler = (req, _reply, done) => {
        const key = req.headers['idempotency-key'];
        if (typeof key !== 'string' || !req.auth) return done();
        try {
          req.keyReservation = reserveKey(req, key);
        } catch (error) {
          return done(error as Error);
        }
        done();
      };
      route.onRequest = [...hookList(route.onRequest), reserve];
    }
    const check: preHandlerAsyncHookHandler = async (req, reply) => {
      if (policy.idempotent) {
        if (!req.keyReservation) return undefined;
        const outcome = await claimOrAnswer(req, reply, operationId!);
        if (!('holder' in outcome)) return reply;
        req.idempotency = outcome;
        return undefined;
      }
      if (template) await conditional(req, template);
      return undefined;
    };
    route.preHandler = [...hookList(route.preHandler), check];
    route.onSend = [
      ...hookList(route.onSend),
      async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
        await settleKey(req, reply, payload);
        // The write is over (committed or not): the lease ends before the answer leaves, so the
        // client's next conditional write never waits for it.
        await releaseHeldLock(req);
        return payload;
      },
    ];
    // A request that never reached its answer (the client went away) still ends its key and lease.
    route.onResponse = [
      ...hookList(route.onResponse),
      async (req: FastifyRequest, reply: FastifyReply) => {
        await settleKey(req, reply, null);
        await releaseHeldLock(req);
      },
    ];
  });
});
