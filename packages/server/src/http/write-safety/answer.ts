import type { FastifyReply, FastifyRequest } from 'fastify';
import { inRequestTransaction } from '../../db/request-transaction.js';
import type { StoredHeaders } from '../../db/schema.js';
import { AppError } from '../errors.js';
import { etagOf, tagMatches, type WritePolicy } from './policy.js';
import { ifMatchOf, underPrecondition } from './preconditions.js';
import { storeAnswer } from './repository.js';

/** Response headers kept with a stored answer. */
export const KEPT_HEADERS = ['etag', 'location'] as const;

/**
 * The answer as it is stored: one-time secrets (`x-replay-redacts`) replaced by null, so that no
 * secret is ever stored (JSON.parse keeps the order of the keys, so the rest reads the same).
 */
function storedBody(policy: WritePolicy, body: string): string {
  if (policy.redacts.length === 0) return body;
  const envelope = JSON.parse(body) as { result?: Record<string, unknown> | null };
  if (envelope.result) for (const field of policy.redacts) if (field in envelope.result) envelope.result[field] = null;
  return JSON.stringify(envelope);
}

/** A JSON answer ready to send: its status and serialized body. */
export interface JsonAnswer {
  code: number;
  body: string;
}

/** The new resource's id in a create's answer. */
function createdId(body: string): number | undefined {
  const id = (JSON.parse(body) as { result?: { id?: unknown } | null }).result?.id;
  return typeof id === 'number' ? id : undefined;
}

/**
 * The headers of a JSON success of an operation that takes part: its ETag, the resource's new
 * ETag after a write, the new resource's ETag after a create (so its first conditional write
 * needs no GET). Returns true when the answer is a 304 (`If-None-Match` names the tag).
 */
async function answerHeaders(req: FastifyRequest, reply: FastifyReply, policy: WritePolicy, body: string): Promise<boolean> {
  if (policy.etag) {
    const etag = etagOf(body);
    reply.header('etag', etag);
    const ifNoneMatch = req.headers['if-none-match'];
    // If-None-Match compares weakly (RFC 9110): W/"x" names "x".
    if (typeof ifNoneMatch === 'string' && tagMatches(ifNoneMatch.replace(/W\//g, ''), etag)) return true;
  }
  const write = policy.conditional;
  if (write && !write.removes) {
    const etag = write.representation
      ? etagOf(body)
      : req.headers['if-match']
        ? await req.server.resourceKinds.currentEtag(req, reply, write.resource)
        : null;
    if (etag) reply.header('etag', etag);
  }
  const created = policy.creates;
  if (created && reply.statusCode === 201) {
    let etag: string | null = null;
    if (created.representation) etag = etagOf(body);
    else {
      const id = createdId(body);
      // The GET's representation read as the creator (the same caller) with the new id.
      const as = Object.create(req, { params: { value: { id } } }) as FastifyRequest;
      if (id !== undefined) etag = await req.server.resourceKinds.currentEtag(as, reply, created.resource);
    }
    if (etag) reply.header('etag', etag);
  }
  return false;
}

/** Sends a JSON success of an operation that takes part, outside a request transaction (reads, writes without a key). */
export async function finishAnswer(
  req: FastifyRequest,
  reply: FastifyReply,
  policy: WritePolicy,
  answer: JsonAnswer,
): Promise<FastifyReply> {
  if (await answerHeaders(req, reply, policy, answer.body)) return reply.code(304).send();
  return reply.type('application/json; charset=utf-8').send(answer.body);
}

/** Whether the request runs in a request transaction of its own (a key, or a precondition to check). */
export const inTransaction = (req: FastifyRequest, policy: WritePolicy): boolean =>
  req.idempotency !== null || ifMatchOf(req, policy.conditional) !== null;

/**
 * Runs an operation under the request's `Idempotency-Key` and/or its `If-Match`, in one request
 * transaction (see db/request-transaction.ts): the precondition's lock and check (preconditions.ts),
 * the handler's rows, then its answer stored under the key, then COMMIT. Whatever fails after
 * that COMMIT (the answer never reaching the client), a retry finds the answer; whatever fails
 * before it, nothing was written and a retry runs the request again.
 * `run` answers a file itself (returns undefined): no operation under a key does.
 */
export async function answerInTransaction(
  req: FastifyRequest,
  reply: FastifyReply,
  policy: WritePolicy,
  run: () => Promise<JsonAnswer | undefined>,
): Promise<FastifyReply> {
  const claim = req.idempotency;
  const ifMatch = ifMatchOf(req, policy.conditional);
  const work = ifMatch === null ? run : () => underPrecondition(req, reply, policy.conditional!, ifMatch, run);
  const { value: answer, tx } = await inRequestTransaction(work);
  if (!answer) {
    await tx.commit();
    return reply;
  }
  reply.code(answer.code);
  try {
    await tx.run(async () => {
      await answerHeaders(req, reply, policy, answer.body);
      if (!claim) return;
      const headers: StoredHeaders = { 'content-type': 'application/json; charset=utf-8' };
      for (const name of KEPT_HEADERS) {
        const value = reply.getHeader(name);
        if (typeof value === 'string') headers[name] = value;
      }
      // Only the request holding the key stores (a request whose lease ran out may have lost it).
      if (!(await storeAnswer(req.server.db, claim, answer.code, headers, storedBody(policy, answer.body)))) {
        throw new AppError('IDEMPOTENCY_KEY_IN_USE', { retryAfterSeconds: 1 }, 'A request with this Idempotency-Key is still in progress');
      }
    });
  } catch (error) {
    await tx.rollback();
    throw error;
  }
  await tx.commit();
  if (claim) req.idempotencyOutcome = 'stored';
  return reply.type('application/json; charset=utf-8').send(answer.body);
}
