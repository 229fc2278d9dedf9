import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';

/*
 * Text search reads GIN indexes. New rows wait in a pending list that every search reads in full
 * until it is merged, and the planner prices it: with the default 4 MB limit, a table that received
 * a thousand rows since its last vacuum had its searches planned as sequential scans. Every GIN
 * index keeps its list under 64 kB, 8 pages (migration 0012).
 */
const MAX_PENDING_PAGES = 8;
const t = useTestApp();

const ROLLBACK = new Error('rollback');

const ginIndexes = sql<{ name: string; options: string[] | null }>`
  select c.relname as name, c.reloptions as options from pg_index i
  join pg_class c on c.oid = i.indexrelid
  join pg_am am on am.oid = c.relam
  join pg_namespace n on n.oid = c.relnamespace
  where am.amname = 'gin' and n.nspname = current_schema()
  order by 1`;

describe('GIN indexes', () => {
  it('all keep a short pending list, the text search ones included', async () => {
    const { rows } = await ginIndexes.execute(t.db);
    const names = rows.map((r) => r.name);
    expect(names).toEqual(
      expect.arrayContaining(['transports_loading_number_trgm_idx', 'transports_created_by_text_trgm_idx', 'actors_search_trgm_idx']),
    );
    for (const r of rows) expect(r.options ?? [], r.name).toContain('gin_pending_list_limit=64');
  });

  it('hold at most 8 pending pages after a burst of writes: a search reads little besides the index', async () => {
    const pending: Record<string, number> = {};
    await t.db
      .transaction()
      .execute(async (trx) => {
        await sql`insert into transports (charger_first_name, charger_last_name, vehicle_type_id, loading_point, unloading_point, product_label, created_by)
          select 'Driver', 'No' || g, (select min(id) from vehicle_types), 'Lyon, terminal ' || g, 'Dakar, warehouse ' || g,
            'Steel coils ' || g, (select min(id) from users)
          from generate_series(1, 3000) g`.execute(trx);
        const { rows } = await ginIndexes.execute(trx);
        for (const { name } of rows) {
          // The number of pending-list pages merged into the index: what a search had to read.
          const merged = await sql<{ pages: number }>`select gin_clean_pending_list(${name}::regclass) as pages`.execute(trx);
          pending[name] = Number(merged.rows[0]!.pages);
        }
        throw ROLLBACK;
      })
      .catch((error: unknown) => {
        if (error !== ROLLBACK) throw error;
      });
    expect(Object.keys(pending).length).toBeGreaterThanOrEqual(6);
    expect(Object.entries(pending).filter(([, pages]) => pages > MAX_PENDING_PAGES)).toEqual([]);
    // The burst did reach the trigram indexes' lists (the check above is not vacuous).
    expect(pending.transports_loading_point_trgm_idx).toBeGreaterThan(0);
  });
});
