import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSTRAINTS } from '../../src/db/constraints.js';
import { contractErrorOf } from '../../src/lib/db-errors.js';
import { freshDatabase } from '../support/app.js';

let database: Awaited<ReturnType<typeof freshDatabase>>;
beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(async () => database?.drop());

describe('the constraint table (src/db/constraints.ts)', () => {
  it('names only constraints and unique indexes the migrated database has, of the kind it says', async () => {
    const { rows } = await sql<{ name: string; kind: string }>`
      select conname as name, case contype when 'f' then 'foreign key' else 'unique' end as kind
        from pg_constraint where contype in ('f', 'u', 'p')
      union
      select i.relname, 'unique' from pg_index x join pg_class i on i.oid = x.indexrelid where x.indisunique
    `.execute(database.db);
    const present = new Map(rows.map((row) => [row.name, row.kind]));
    const wrong = Object.entries(CONSTRAINTS)
      .filter(([name, entry]) => present.get(name) !== entry.kind)
      .map(([name, entry]) => `${name}: ${entry.kind}, database: ${present.get(name) ?? 'absent'}`);
    expect(wrong).toEqual([]);
  });

  it('gives a unique violation the resource and field the contract names', () => {
    const error = {
      code: '23505',
      constraint: 'transports_loading_number_key',
      table: 'transports',
      detail: 'Key (loading_number)=(LN-1) already exists.',
    };
    expect((contractErrorOf(error) as { detail?: unknown }).detail).toEqual({
      code: 'ALREADY_EXISTS',
      resource: 'transport',
      field: 'loadingNumber',
      value: 'LN-1',
    });
  });
});
