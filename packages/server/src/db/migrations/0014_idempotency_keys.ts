import { type Kysely, sql } from 'kysely';

/*
 * Write safety (contract introduction, "Idempotent retries" and "Conditional requests"):
 * - `idempotency_keys`: one row per caller and `Idempotency-Key`, claimed by the first request
 *   (insert ... on conflict do nothing, so concurrent copies make one row), holding the request's
 *   fingerprint and, once it answered with a success, the answer to replay until `expires_at`.
 *   A row without an answer is in flight until `locked_until`. Expired rows are swept by
 *   `expires_at`.
 * - `resource_locks`: a short lease per resource (its URL) that conditional writes (`If-Match`)
 *   hold between comparing the resource's ETag and writing it, on every instance.
 * Frozen in time: never import application code here.
 */

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('operation', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('status', 'smallint')
    .addColumn('headers', 'jsonb')
    .addColumn('body', 'text')
    .addColumn('locked_until', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('idempotency_keys_pkey', ['scope', 'key'])
    .addCheckConstraint('idempotency_keys_key_length', sql`char_length(key) between 1 and 255`)
    .execute();
  await db.schema.createIndex('idempotency_keys_expires_at').on('idempotency_keys').column('expires_at').execute();

  await db.schema
    .createTable('resource_locks')
    .addColumn('resource', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('locked_until', 'timestamptz', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('resource_locks').execute();
  await db.schema.dropTable('idempotency_keys').execute();
}
