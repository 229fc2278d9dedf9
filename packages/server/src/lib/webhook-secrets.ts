import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.js';

type Db = Kysely<Database>;

/*
 * Webhook signing secrets at rest. Each secret is sealed with AES-256-GCM (node:crypto) under a
 * key from WEBHOOK_SECRET_KEYS (config.ts: `kid:base64key,...`, the first seals new secrets), with
 * a fresh 96-bit IV, the key id as associated data, and the key id stored beside it
 * (`webhook_subscriptions.secret_key_id`), so keys rotate: put the new key first, keep the old one
 * listed until the next start has sealed every secret again under the first (sealStoredSecrets).
 * A secret is opened only to sign a delivery.
 */

export interface SecretKey {
  id: string;
  /** 32 bytes, base64. */
  key: string;
}

const FORMAT = 'v1';
const keyBytes = (k: SecretKey) => Buffer.from(k.key, 'base64');

/** The sealed form of `secret` under the first key: `v1.<iv>.<ciphertext>.<tag>` (base64url), and that key's id. */
export function sealSecret(secret: string, keys: readonly SecretKey[]): { secret: string; secret_key_id: string } {
  const key = keys[0];
  if (!key) throw new Error('no webhook secret key configured');
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyBytes(key), iv);
  cipher.setAAD(Buffer.from(key.id));
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  const parts = [iv, ciphertext, cipher.getAuthTag()].map((b) => b.toString('base64url'));
  return { secret: [FORMAT, ...parts].join('.'), secret_key_id: key.id };
}

/** The secret `sealed` holds (a null key id: a secret stored before sealing, as it is). Throws when its key is not configured. */
export function openSecret(sealed: string, keyId: string | null, keys: readonly SecretKey[]): string {
  if (keyId === null) return sealed;
  const key = keys.find((k) => k.id === keyId);
  if (!key) throw new Error(`webhook secret key ${keyId} is not in WEBHOOK_SECRET_KEYS`);
  const [format, iv, ciphertext, tag] = sealed.split('.');
  if (format !== FORMAT || !iv || ciphertext === undefined || !tag) throw new Error('malformed sealed webhook secret');
  const decipher = createDecipheriv('aes-256-gcm', keyBytes(key), Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(key.id));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}

/**
 * Seals every secret stored in plain text, and seals again under the first key every secret sealed
 * under another one (a rotation). Runs at start, after the migrations; returns how many it changed.
 * A secret whose key is no longer configured is left as it is (its deliveries fail until the key is back).
 */
export async function sealStoredSecrets(db: Db, keys: readonly SecretKey[]): Promise<number> {
  const first = keys[0];
  if (!first) return 0;
  const rows = await db
    .selectFrom('webhook_subscriptions')
    .select(['id', 'secret', 'secret_key_id'])
    .where((eb) => eb.or([eb('secret_key_id', 'is', null), eb('secret_key_id', '!=', first.id)]))
    .execute();
  let changed = 0;
  for (const row of rows) {
    if (row.secret_key_id !== null && !keys.some((k) => k.id === row.secret_key_id)) continue;
    const sealed = sealSecret(openSecret(row.secret, row.secret_key_id, keys), keys);
    // Only if nobody rotated it meanwhile.
    const done = await db
      .updateTable('webhook_subscriptions')
      .set(sealed)
      .where('id', '=', row.id)
      .where('secret', '=', row.secret)
      .where(sql<boolean>`secret_key_id is not distinct from ${row.secret_key_id}`)
      .executeTakeFirst();
    changed += Number(done.numUpdatedRows);
  }
  return changed;
}
