import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler, preHandlerAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { OperationId } from '../handlers.js';
import { hookList } from '../route-hooks.js';
import { claimOrAnswer, releaseReservation, reserveKey } from './keys.js';
import { writePolicies } from './policy.js';
import { ResourceKinds, type Representations } from './representations.js';
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
  interface FastifyInstance {
    /** The resources whose ETag conditional writes and creates compute (representations.ts). */
    resourceKinds: ResourceKinds;
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

/** The resource GETs (template -> operationId) whose representation the writes need. */
const resourceGets = new Map<string, OperationId>();
for (const policy of policies.values()) {
  if (policy.conditional) resourceGets.set(policy.conditional.resource, policy.conditional.get as OperationId);
  if (policy.creates && !policy.creates.representation) resourceGets.set(policy.creates.resource, policy.creates.get as OperationId);
}

/** The schema a route's 200 JSON answer is serialized with (Fastify's two forms of `response`). */
function okSchema(route: { schema?: unknown }): object | undefined {
  const responses = (route.schema as { response?: Record<string, unknown> } | undefined)?.response;
  const ok = (responses?.['200'] ?? responses?.[200 as unknown as string]) as { content?: Record<string, { schema?: object }> } | undefined;
  return ok?.content?.['application/json']?.schema ?? ok;
}

/**
 * Idempotent retries and conditional writes (the contract's introduction states the rules):
 * hooks on the routes of the operations that take part, driven by the contract. The operation
 * itself runs under its key and its precondition in answer.ts, called by the binding; the
 * representations of the resources (`options.representations`) are the modules'.
 */
export default fp(async function writeSafety(app: FastifyInstance, options: { representations: Representations }) {
  app.decorateRequest('idempotency', null);
  app.decorateRequest('idempotencyOutcome', null);
  app.decorateRequest('keyReservation', null);
  app.decorateRequest('countUnlessNotModified', false);
  app.decorateRequest('lockedRepresentation', null);
  const kinds = new ResourceKinds(options.representations, resourceGets);
  app.decorate('resourceKinds', kinds);
  app.addHook('onReady', async () => {
    const unbound = kinds.unbound();
    if (unbound.length > 0) throw new Error(`resource GETs without a route: ${unbound.join(', ')}`);
  });
  const count = app.createRateLimit();

  app.addHook('onRoute', (route) => {
    const operationId = (route.schema as { operationId?: string } | undefined)?.operationId;
    const policy = operationId === undefined ? undefined : policies.get(operationId);
    if (!policy || route.method === 'HEAD') return;
    if (route.method === 'GET') kinds.routeAdded(operationId!, okSchema(route));
    if (policy.etag) {
      route.onResponse = [
        ...hookList(route.onResponse),
        async (req: FastifyRequest, reply: FastifyReply) => {
          if (req.countUnlessNotModified && reply.statusCode !== 304) await count(req).catch(() => undefined);
        },
      ];
    }
    if (!policy.idempotent) return;
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
    const check: preHandlerAsyncHookHandler = async (req, reply) => {
      if (!req.keyReservation) return undefined;
      const outcome = await claimOrAnswer(req, reply, operationId!);
      if (!('holder' in outcome)) return reply;
      req.idempotency = outcome;
      return undefined;
    };
    route.preHandler = [...hookList(route.preHandler), check];
    route.onSend = [
      ...hookList(route.onSend),
      async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
        await settleKey(req, reply, payload);
        return payload;
      },
    ];
    // A request that never reached its answer (the client went away) still ends its key.
    route.onResponse = [...hookList(route.onResponse), async (req: FastifyRequest, reply: FastifyReply) => settleKey(req, reply, null)];
  });
});
