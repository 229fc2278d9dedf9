import { type Kysely, sql } from 'kysely';

/*
 * Deliveries leave with their write. Every statement that queues webhook deliveries sends a
 * NOTIFY on `webhook_deliveries`; PostgreSQL delivers it to the listening instances when (and only
 * if) the transaction commits, once per transaction whatever the number of statements. Each
 * instance's delivery worker listens and claims at once, so an event written by any instance, or
 * by a background job, is sent when its write commits instead of at the next poll.
 * Frozen in time: never import application code here.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create function notify_webhook_deliveries() returns trigger language plpgsql as $$
    begin
      perform pg_notify('webhook_deliveries', '');
      return null;
    end $$`.execute(db);
  await sql`create trigger webhook_deliveries_notify after insert on webhook_deliveries
    for each statement execute function notify_webhook_deliveries()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger webhook_deliveries_notify on webhook_deliveries`.execute(db);
  await sql`drop function notify_webhook_deliveries()`.execute(db);
}
