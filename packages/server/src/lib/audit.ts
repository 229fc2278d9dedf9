import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { AuthContext } from './identity.js';

/*
 * The audit log's writer: one call per audited change, given the transaction that makes the change,
 * so the entry commits or rolls back with it. Handlers call it after their checks, inside their
 * `db.transaction()`; a request that writes nothing else (a refused login) passes `db` and the
 * entry is its own transaction. The reader and the retention sweep are in modules/audit/; the
 * table (migration 0023) refuses every update and deletion but the sweep's.
 */

/** What of the request an entry keeps: a FastifyRequest is one. */
export interface AuditSource {
  id: string;
  ip: string;
  headers: { 'user-agent'?: string | undefined };
  auth: AuthContext | null;
}

export interface AuditChange {
  /** `<resource>.<verb>`, past tense: `user.deactivated`, `api_key.created`. */
  action: string;
  resource: { type: string; id: number | null };
  /**
   * The record's fields before and after, named as in the API's bodies. A creation passes only
   * `after`, a deletion only `before`; an update passes both and only the fields of `after` that
   * differ from `before` are kept (`before` may hold more fields than the update touches).
   */
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
  /** Context that is not a field of the record (the username a failed login tried). */
  details?: Record<string, unknown>;
}

/** Shown instead of a secret's value: that it changed is recorded, never what it is. */
export const REDACTED = '[redacted]';

/** Field names whose values are secrets: passwords and their hashes, keys, tokens, signing secrets. */
const SECRET = /password|secret|token|hash|^key$|apikey/;
const isSecret = (field: string) => SECRET.test(field.toLowerCase().replace(/[_-]/g, ''));

/** A field's value as stored (JSON's own form: dates as ISO text, undefined as null). */
const plain = (value: unknown): unknown => (value === undefined ? null : JSON.parse(JSON.stringify(value)));
const same = (a: unknown, b: unknown) => JSON.stringify(plain(a)) === JSON.stringify(plain(b));

function masked(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    out[field] = isSecret(field) ? REDACTED : plain(value);
  }
  return out;
}

/** The changed fields of `change`, secrets masked: both sides of an update, or the one side given. */
export function changedFields(change: Pick<AuditChange, 'before' | 'after'>): {
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
} {
  const { before, after } = change;
  if (!before || !after) return { before: before ? masked(before) : null, after: after ? masked(after) : null };
  const was: Record<string, unknown> = {};
  const is: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(after)) {
    if (value === undefined || (same(before[field], value) && !isSecret(field))) continue;
    was[field] = before[field] ?? null;
    is[field] = value;
  }
  return { before: masked(was), after: masked(is) };
}

/** The API key a caller came with (the key guard names its identity `apikey:<id>`). */
function apiKeyOf(auth: AuthContext | null): number | null {
  const match = auth ? /^apikey:(\d+)$/.exec(auth.tokenId) : null;
  return match ? Number(match[1]) : null;
}

const json = (value: Record<string, unknown> | null | undefined) => (value ? JSON.stringify(value) : null);

/** Records `change` as made by the caller of `req`, in the transaction `trx` (or its own, given `db`). */
export async function audit(trx: Kysely<Database>, req: AuditSource, change: AuditChange): Promise<void> {
  const { auth } = req;
  const { before, after } = changedFields(change);
  await trx
    .insertInto('audit_log')
    .values({
      action: change.action,
      actor_user_id: auth?.userId ?? null,
      actor_username: auth?.username ?? null,
      actor_role: auth?.accessLevel ?? null,
      api_key_id: apiKeyOf(auth),
      resource_type: change.resource.type,
      resource_id: change.resource.id,
      before: json(before),
      after: json(after),
      details: change.details ? JSON.stringify(masked(change.details)) : null,
      ip: req.ip,
      user_agent: req.headers['user-agent']?.slice(0, 1000) ?? null,
      request_id: req.id,
    })
    .execute();
}

/** Whether the caller is staff (team manager and above), whose changes are audited. */
export const isStaff = (auth: AuthContext | null): boolean => auth !== null && auth.accessLevel !== 'agent';
