import { type Kysely, sql } from 'kysely';

/*
 * A transport's total product value stays within the contract's bound (10^12).
 *
 * When a write does not send `totalProductValue`, the server computes it as quantity × unit price,
 * each up to 10^12: on an update the product is computed in SQL from the sent and stored values
 * (two concurrent changes cannot combine stale values), so the bound is checked where the value is
 * made, by this constraint; lib/db-errors.ts answers its violation with a 400 naming the fields.
 * NOT VALID: rows written before are not scanned (a long lock on a large table); a total above the
 * bound can only have been computed by an earlier server, and `validate constraint` proves there
 * is none once checked.
 * Frozen in time: never import application code here.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table transports add constraint transports_total_product_value_max
    check (total_product_value <= 1e12) not valid`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table transports drop constraint transports_total_product_value_max`.execute(db);
}
