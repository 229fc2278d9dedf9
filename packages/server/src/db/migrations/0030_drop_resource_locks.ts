import { type Kysely, sql } from 'kysely';

/*
 * `resource_locks` (0014) held a lease per resource while a conditional write compared its ETag
 * and wrote it. Conditional writes now lock the resource's own row in their transaction, and no
 * version of the server since has taken a lease, so the table only ever held leases that had
 * ended: it goes. `down` makes it again, empty, as 0014 made it.
 * Frozen in time: never import application code here.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`drop table if exists resource_locks`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('resource_locks')
    .addColumn('resource', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('locked_until', 'timestamptz', (c) => c.notNull())
    .execute();
}
