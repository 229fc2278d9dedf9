import type { Kysely } from 'kysely';

/*
 * Idempotency keys whose outcome commits with the write (contract introduction, "Idempotent
 * retries"): the answer is stored by the operation's own transaction, so a key without an answer
 * belongs to a request that never committed. `holder` names the request that runs under the key
 * (its process and a number): the answer is stored only by its holder, a retry takes a key over
 * from a holder that is gone, and the two can never both commit.
 * Frozen in time: never import application code here.
 */

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('idempotency_keys').addColumn('holder', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('idempotency_keys').dropColumn('holder').execute();
}
