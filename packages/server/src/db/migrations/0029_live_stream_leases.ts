import { type Kysely, sql } from 'kysely';

/*
 * The open live streams of every instance (GET /trade/transports/{id}/live), so that the limit of
 * streams per user holds across instances.
 *
 * - One row per open stream: the user, the instance holding it (for diagnosis and for the
 *   instance's own clean-up at shutdown), and when the lease ends unless its instance extends it
 *   (every heartbeat). A lease whose instance crashed is not extended: once expired it no longer
 *   counts, and it is deleted by the next open of the same user or the heartbeat of any instance
 *   holding streams.
 * - A new lease is taken under a transaction-level advisory lock on the user, after counting the
 *   user's unexpired leases, so that two instances opening at once cannot both take the last place.
 * - No foreign key to users: a deleted user's streams end at the next heartbeat's credential check
 *   and their leases go with them (or expire); the table holds only what is open now.
 * - Times are the database's (now()), the one clock every instance shares.
 * Frozen in time: never import application code here.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table live_stream_leases (
    id bigint generated always as identity primary key,
    user_id integer not null,
    instance text not null,
    expires_at timestamptz not null,
    created_at timestamptz not null default now()
  )`.execute(db);
  await sql`create index live_stream_leases_user_id_expires_at_idx on live_stream_leases (user_id, expires_at)`.execute(db);
  await sql`create index live_stream_leases_expires_at_idx on live_stream_leases (expires_at)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table live_stream_leases`.execute(db);
}
