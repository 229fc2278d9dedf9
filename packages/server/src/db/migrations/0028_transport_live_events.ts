import { type Kysely, sql } from 'kysely';

/*
 * The live stream of a transport (GET /trade/transports/{id}/live).
 *
 * - transport_live_events: what the stream sends (positions, milestones, ETA, status, delivery),
 *   written in the transaction of the change, kept LIVE_RETENTION_MINUTES for clients resuming
 *   with Last-Event-ID, then swept. No foreign key to transports, on purpose: a foreign-key check
 *   would take a share lock on the transport row after the stream lock below, against writers
 *   that lock the row first (a deadlock); rows of a deleted transport leave with the sweep. The
 *   transport is the only key (distributable by transport).
 * - Order along one transport: a BEFORE INSERT trigger takes a transaction-level advisory lock on
 *   the transport, then gives the row its id. The lock is held until the transaction ends, so the
 *   ids of one transport become visible in increasing order: a reader that has seen id n of a
 *   transport will never see a smaller id of it commit later (the gap-free resume relies on it).
 *   Writers of different transports never wait for each other.
 * - Every insert sends NOTIFY transport_live with the transport id as payload, delivered to every
 *   listening instance when (and only if) the transaction commits.
 * - transport_live_sweeps: one row, the greatest id swept; a Last-Event-ID below it may have lost
 *   events (the stream then starts over with a snapshot).
 * Frozen in time: never import application code here.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table transport_live_events (
    id bigint primary key,
    transport_id integer not null,
    type text not null,
    data jsonb not null,
    created_at timestamptz not null default now()
  )`.execute(db);
  await sql`create sequence transport_live_events_id_seq owned by transport_live_events.id`.execute(db);
  await sql`create index transport_live_events_transport_id_id_idx on transport_live_events (transport_id, id)`.execute(db);
  await sql`create function transport_live_events_order() returns trigger language plpgsql as $$
    begin
      perform pg_advisory_xact_lock(1952805748, new.transport_id);
      new.id := nextval('transport_live_events_id_seq');
      perform pg_notify('transport_live', new.transport_id::text);
      return new;
    end $$`.execute(db);
  await sql`create trigger transport_live_events_order before insert on transport_live_events
    for each row execute function transport_live_events_order()`.execute(db);
  await sql`create table transport_live_sweeps (
    id boolean primary key default true constraint transport_live_sweeps_one_row check (id),
    swept_through bigint not null default 0
  )`.execute(db);
  await sql`insert into transport_live_sweeps default values`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table transport_live_sweeps`.execute(db);
  await sql`drop table transport_live_events`.execute(db);
  await sql`drop function transport_live_events_order()`.execute(db);
}
