import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { FILTER_COLUMNS } from '../../src/modules/transports/repository.js';
import { useTestApp } from '../support/app.js';

/*
 * A team manager's text-filtered transport page walks each member's rows on
 * (created_by, created_at, id) and carries only the columns the filters read (FILTER_COLUMNS):
 * the walk is an index-only scan while the index holds them all (migration 0013). A filter on a
 * new column must be added to both, or the walk reads the table again for every row.
 */
const t = useTestApp();

const indexColumns = sql<{ name: string; key: boolean }>`
  select a.attname as name, k.ord <= i.indnkeyatts as key
  from pg_index i
  join pg_class c on c.oid = i.indexrelid
  cross join lateral unnest(i.indkey) with ordinality as k(attnum, ord)
  join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
  where c.relname = 'transports_created_by_created_at_id_cover_idx'
  order by k.ord`;

describe('covering indexes', () => {
  it("hold every column a team manager's member-by-member transport walk carries", async () => {
    const { rows } = await indexColumns.execute(t.db);
    expect(rows.filter((r) => r.key).map((r) => r.name)).toEqual(['created_by', 'created_at', 'id']);
    const held = rows.map((r) => r.name);
    const carried = FILTER_COLUMNS.map((c) => c.replace(/^t\./, ''));
    expect(carried.filter((c) => !held.includes(c))).toEqual([]);
  });
});
