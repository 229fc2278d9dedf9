import { type Kysely, sql } from 'kysely';

/*
 * Limits on what a credential may do.
 *
 * - `api_keys.access_level_cap`: the access level a key was created with. A key acts with the
 *   lesser of this level and its service account's current one, so promoting the account never
 *   widens an existing key. Existing keys are capped at their account's level today.
 * - `api_keys.user_id` cascades: deleting a key's service account deletes its keys (a key without
 *   its account could not be used anyway, and the delete no longer fails on the reference).
 * - `webhook_subscriptions.secret_key_id`: the id of the key the signing secret is encrypted with
 *   (`secret` then holds the sealed form); null for a secret still in plain text, which the server
 *   encrypts on its next start.
 * Frozen in time: never import application code here.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table api_keys add column access_level_cap text`.execute(db);
  await sql`update api_keys k set access_level_cap = r.access_level
    from users u join roles r on r.id = u.role_id where u.id = k.user_id`.execute(db);
  await sql`alter table api_keys alter column access_level_cap set not null`.execute(db);
  await sql`alter table api_keys drop constraint api_keys_user_id_fkey`.execute(db);
  await sql`alter table api_keys add constraint api_keys_user_id_fkey
    foreign key (user_id) references users (id) on delete cascade`.execute(db);
  await sql`alter table webhook_subscriptions add column secret_key_id text`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table webhook_subscriptions drop column secret_key_id`.execute(db);
  await sql`alter table api_keys drop constraint api_keys_user_id_fkey`.execute(db);
  await sql`alter table api_keys add constraint api_keys_user_id_fkey
    foreign key (user_id) references users (id) on delete restrict`.execute(db);
  await sql`alter table api_keys drop column access_level_cap`.execute(db);
}
