import type { FastifyReply, FastifyRequest } from 'fastify';
import { inRequestTransaction } from '../../db/request-transaction.js';
import type { StoredHeaders } from '../../db/schema.js';
import { AppError } from '../errors.js';
import { etagOf, tagMatches, type WritePolicy } from './policy.js';
import { currentEtag, resourcePath } from './preconditions.js';
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

/**
 * The headers of a JSON success of an operation that takes part: its ETag, the resource's new
 * ETag after a write. Returns true when the answer is a 304 (`If-None-Match` names the tag).
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
        ? await currentEtag(req, resourcePath(write.resource, req.params))
        : null;
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

/**
 * Runs an operation under the request's `Idempotency-Key` in one request transaction (see
 * db/request-transaction.ts): the handler's rows, then its answer stored under the key, then
 * COMMIT. Whatever fails after that COMMIT (the answer never reaching the client), a retry finds
 * the answer; whatever fails before it, nothing was written and a retry runs the request again.
 * `run` answers a file itself (returns undefined): no operation under a key does.
 */
export async function answerUnderKey(
  req: FastifyRequest,
  reply: FastifyReply,
  policy: WritePolicy,
  run: () => Promise<JsonAnswer | undefined>,
): Promise<FastifyReply> {
  const claim = req.idempotency!;
  const { value: answer, tx } = await inRequestTransaction(run);
  if (!answer) {
    await tx.commit();
    return reply;
  }
  reply.code(answer.code);
  try {
    await tx.run(async () => {
      await answerHeaders(req, reply, policy, answer.body);
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
  req.idempotencyOutcome = 'stored';
  return reply.type('application/json; charset=utf-8').send(answer.body);
}
