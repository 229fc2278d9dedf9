import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { metrics } from '../../lib/metrics.js';
import { AppError } from '../errors.js';
import { claimKey, heldKey, type KeyClaim, takeOverKey } from './repository.js';

/*
 * Idempotency keys (the contract's introduction, "Idempotent retries"), in atomic phases:
 * 1. the claim, its own short statement: a new key is taken for this request; a known one answers
 *    from what it holds (replay, 422 for another payload, 409 while its request runs);
 * 2. the operation's transaction writes its rows and stores the answer together (answer.ts), so a
 *    key without an answer belongs to a request that never committed and may run again;
 * 3. an error answer is stored after the rollback, or the key is freed (plugin.ts).
 */

/** How long an answer is replayed (the contract's introduction says 24 hours). */
export const KEY_RETENTION_MS = 24 * 3600_000;
/** How long another instance waits for a request under a key before taking the key over. */
export const KEY_LEASE_MS = 60_000;

/** This process, in the `holder` of the keys its requests run under. */
const PROCESS = randomUUID();
let requests = 0;

/**
 * Keys whose request runs in this process, from the moment its caller is known (before its body
 * is read): a request arriving here meanwhile under the same key is answered 409 at once, without
 * waiting for the database. On the embedded database the first request's transaction runs without
 * yielding to the others, which then met a finished key and a replay; now both databases answer
 * 409 while the first runs, the replay after.
 */
const running = new Set<string>();
const runningId = (scope: string, key: string) => `${scope}\n${key}`;

/** The caller's scope of keys: keys of different callers never meet. */
export const keyScope = (req: FastifyRequest) => `user:${req.auth!.userId}`;

/** Marks the request's key as running here; 409 when another request under it runs here. Returns the mark. */
export function reserveKey(req: FastifyRequest, key: string): string {
  const id = runningId(keyScope(req), key);
  if (running.has(id)) throw inUse();
  running.add(id);
  return id;
}

/** The request under the key ended here (answered, or never will). */
export function releaseReservation(id: string): void {
  running.delete(id);
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
const reused = () => new AppError('IDEMPOTENCY_KEY_REUSED', {}, 'This Idempotency-Key was used for another request');

/**
 * Whether a held key's request is gone: its lease ran out, or it ran in this process (this request
 * holds the key's mark here, so that one has ended).
 */
const gone = (held: { holder: string | null; in_flight: boolean }) => !held.in_flight || held.holder?.startsWith(`${PROCESS}:`) === true;

/**
 * Claims the request's key (then returns the claim, the request runs), or answers from it:
 * the stored answer replayed, 422 for another payload, 409 while its request runs.
 */
export async function claimOrAnswer(req: FastifyRequest, reply: FastifyReply, operationId: string): Promise<KeyClaim | FastifyReply> {
  const key = req.headers['idempotency-key'] as string;
  const claim: KeyClaim = {
    scope: keyScope(req),
    key,
    operation: operationId,
    fingerprint: await fingerprint(req, operationId),
    holder: `${PROCESS}:${++requests}`,
  };
  const { db } = req.server;
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await claimKey(db, claim, KEY_LEASE_MS, KEY_RETENTION_MS)) return claim;
    const held = await heldKey(db, claim.scope, key);
    if (!held) continue; // freed between the claim and the read: claimed again
    if (held.operation !== operationId || held.fingerprint !== claim.fingerprint) throw reused();
    if (held.status !== null && held.body !== null) {
      reply.code(held.status);
      for (const [name, value] of Object.entries(held.headers ?? {})) reply.header(name, value);
      metrics.idempotencyReplays.inc();
      return reply.header('idempotent-replayed', 'true').send(held.body);
    }
    if (!gone(held)) throw inUse();
    // Its request committed nothing (the answer commits with the rows) and is gone: run again.
    if (await takeOverKey(db, claim, held.holder, KEY_LEASE_MS)) return claim;
  }
  throw inUse();
}
