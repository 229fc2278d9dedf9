import { type Kysely, sql } from 'kysely';

/*
 * Login attempts per username (normalised: NFKC, trimmed, lower case), shared by every instance:
 * the per-address rate limit alone let a few addresses try thousands of passwords on one
 * account. A row exists for unknown usernames too, so that the answer never tells whether an
 * account exists. `lockouts` makes each lock longer than the previous one until a successful
 * login or a day without attempts. Rows a day old are removed by later successful logins.
 * Frozen in time: never import application code here.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table login_throttles (
    username_key text primary key,
    attempts integer not null default 0 check (attempts >= 0),
    window_started_at timestamptz not null,
    lockouts integer not null default 0 check (lockouts >= 0),
    locked_until timestamptz,
    last_attempt_at timestamptz not null
  )`.execute(db);
  await sql`create index login_throttles_last_attempt_at_idx on login_throttles (last_attempt_at)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table if exists login_throttles`.execute(db);
}
