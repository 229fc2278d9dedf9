import { createHash, randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema.js';
import { ACCESS_LEVELS, type AccessLevel } from '../../lib/identity.js';

type Db = Kysely<Database>;

/** A new key: `tok_` and 32 random bytes in base64url (256 bits: a sha256 of it is a safe verifier, no slow hash needed). */
export const newKey = () => `tok_${randomBytes(32).toString('base64url')}`;
export const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');

const listColumns = [
  'k.id',
  'k.name',
  'k.prefix',
  'k.user_id',
  'k.access_level_cap',
  'k.created_at',
  'k.last_used_at',
  'k.revoked_at',
  'u.organization_id',
  'r.id as role_id',
  'r.code as role_code',
  'r.name as role_name',
  'r.access_level',
] as const;

const withAccount = (db: Db) =>
  db.selectFrom('api_keys as k').innerJoin('users as u', 'u.id', 'k.user_id').innerJoin('roles as r', 'r.id', 'u.role_id');

export const listKeys = (db: Db) => withAccount(db).select(listColumns).orderBy('k.created_at', 'desc').orderBy('k.id', 'desc');
export type ApiKeyRow = Awaited<ReturnType<ReturnType<typeof listKeys>['execute']>>[number];

export const findKey = (db: Db, id: number) => withAccount(db).select(listColumns).where('k.id', '=', id).executeTakeFirst();

/**
 * Creates the key's service account (`apikey-<key id>`, no actor: it is not a person) and the
 * key, in the caller's transaction (the handler's, which also writes the audit entry). The
 * account's password is a random one nobody is told.
 */
export async function insertKey(
  trx: Db,
  values: {
    name: string;
    roleId: number;
    accessLevel: AccessLevel;
    organizationId: number | null;
    countryId: number;
    createdBy: number;
    passwordHash: string;
  },
): Promise<{ id: number; key: string }> {
  const key = newKey();
  const { id } = await trx
    .selectNoFrom(sql<number>`nextval(pg_get_serial_sequence('api_keys', 'id'))::int`.as('id'))
    .executeTakeFirstOrThrow();
  const user = await trx
    .insertInto('users')
    .values({
      username: `apikey-${id}`,
      email: `apikey-${id}@api-keys.invalid`,
      password_hash: values.passwordHash,
      role_id: values.roleId,
      country_id: values.countryId,
      organization_id: values.organizationId,
      bio: values.name,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await trx
    .insertInto('api_keys')
    .values({
      id,
      name: values.name,
      prefix: key.slice(0, 12),
      key_hash: hashKey(key),
      user_id: user.id,
      access_level_cap: values.accessLevel,
      created_by: values.createdBy,
    })
    .execute();
  return { id, key };
}

/** Revokes a key (the first revocation's time is kept); false when no key has this id. */
export async function revokeKey(db: Db, id: number): Promise<boolean> {
  const row = await db
    .updateTable('api_keys')
    .set({ revoked_at: sql`coalesce(revoked_at, now())` })
    .where('id', '=', id)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The identity a key acts as: its service account, when the key is not revoked and the account and
 * its role active. `access_level` is the lesser of the key's cap (its level when created) and the
 * account's current level: promoting the account never widens a key, demoting it narrows the key.
 */
export async function identityOfKey(db: Db, keyHash: string) {
  const row = await withAccount(db)
    .select([
      'k.id',
      'k.access_level_cap',
      'u.id as user_id',
      'u.username',
      'u.email',
      'u.role_id',
      'r.access_level',
      'u.country_id',
      'u.organization_id',
    ])
    .where('k.key_hash', '=', keyHash)
    .where('k.revoked_at', 'is', null)
    .where('u.is_active', '=', true)
    .where('r.is_active', '=', true)
    .executeTakeFirst();
  if (!row) return undefined;
  const { access_level_cap: cap, ...identity } = row;
  return Object.assign(identity, { access_level: lesserLevel(cap, row.access_level) });
}

/** The lower of two access levels (the contract's order ranks them); an unknown one counts as the lowest. */
export function lesserLevel(a: AccessLevel, b: AccessLevel): AccessLevel {
  const ra = ACCESS_LEVELS.indexOf(a);
  const rb = ACCESS_LEVELS.indexOf(b);
  if (ra < 0 || rb < 0) return ACCESS_LEVELS[0]!;
  return ra <= rb ? a : b;
}

/** Records a use of the key (the callers throttle it). */
export async function touchKey(db: Db, id: number, at: Date): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
}
