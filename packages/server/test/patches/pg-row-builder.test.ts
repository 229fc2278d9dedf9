import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { CompiledQuery, sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/db/connect.js';
import { arrayRowsQuery, CHECKED, REMEMBERED_SHAPES, rowsToObjects } from '../../src/patches/pg-row-builder.js';
import { installedVersion, withinChecked } from '../support/installed.js';

const url = process.env.DATABASE_URL;
const fields = (...names: string[]) => names.map((name) => ({ name }));

/*
 * The pg row builder patch (src/patches/pg-row-builder.ts) works around how pg builds its row
 * objects: these tests fail when an upgrade changes that, or when pg's array rows stop matching.
 */
describe('the pg row builder patch', () => {
  it('runs on a pg version it was checked against', () => {
    const version = installedVersion(CHECKED.package);
    expect(
      withinChecked(version, CHECKED),
      `pg ${version} is outside ${CHECKED.from} - <${CHECKED.below}: recheck src/patches/pg-row-builder.ts`,
    ).toBe(true);
  });

  it('still has a reason: pg builds each object row by spreading one prebuilt object', () => {
    // When this fails, pg builds rows another way: measure again, and drop the patch if its gain is gone.
    const result = readFileSync(createRequire(import.meta.url).resolve('pg/lib/result.js'), 'utf8');
    expect(result).toMatch(/parseRow\(rowData\) \{\s*const row = \{ \.\.\.this\._prebuiltEmptyResultObject \}/);
  });

  it("builds a named query whose rows are arrays parsed by pg's type parsers (int8 as a number)", () => {
    let answered: unknown;
    const query = arrayRowsQuery('select $1::int8 as n', ['42'], 'q_patch', true, (_error, result) => {
      answered = result;
    });
    const internals = query as unknown as {
      name: string;
      callback: unknown;
      _result: { rowAsArray: boolean; parseRow(v: unknown[]): unknown; addFields(f: object[]): void };
    };
    expect(internals.name).toBe('q_patch');
    expect(typeof internals.callback).toBe('function');
    expect(internals._result.rowAsArray).toBe(true);
    internals._result.addFields([{ name: 'n', dataTypeID: 20, format: 'text' }]);
    expect(internals._result.parseRow(['42'])).toEqual([42]);
    const plain = arrayRowsQuery('select 1 as n', [], null, false, () => {}) as unknown as typeof internals;
    plain._result.addFields([{ name: 'n', dataTypeID: 20, format: 'text' }]);
    expect(plain._result.parseRow(['1'])).toEqual({ n: 1 });
    expect(answered).toBeUndefined();
  });

  it("sets what pg's addFields sets for array rows (fields, the same parsers), without the empty row object", () => {
    // When this fails, pg's addFields does something else: recheck what array rows need of it.
    const result = readFileSync(createRequire(import.meta.url).resolve('pg/lib/result.js'), 'utf8');
    const body = /\n {2}addFields\(fieldDescriptions\) \{([\s\S]*?)\n {2}\}\n/.exec(result)?.[1] ?? '';
    const assigned = [...body.matchAll(/this\.(\w+)(?:\[i\])? =/g)].map((m) => m[1]);
    expect([...new Set(assigned)]).toEqual(['fields', '_parsers', '_prebuiltEmptyResultObject']);
    expect(result).toMatch(/_parseRowAsArray\(rowData\) \{[^}]*this\._parsers\[i\]/);

    const fields = [
      { name: 'id', dataTypeID: 23, format: 'text' },
      { name: 'created_at', dataTypeID: 1184, format: 'text' },
      { name: 'total', dataTypeID: 20, format: 'text' },
      { name: 'label', dataTypeID: 25 },
    ];
    type Result = { addFields(f: object[]): void; fields: object[]; _parsers: unknown[]; parseRow(v: unknown[]): unknown };
    const ours = (arrayRowsQuery('select 1', [], null, true, () => {}) as unknown as { _result: Result })._result;
    const theirs = (arrayRowsQuery('select 1', [], null, false, () => {}) as unknown as { _result: Result })._result;
    ours.addFields(fields);
    theirs.addFields(fields);
    expect(ours.fields).toBe(fields);
    expect(ours._parsers).toEqual(theirs._parsers);
    expect(ours._parsers.every((parser, i) => parser === theirs._parsers[i])).toBe(true);
    // pg's constructor sets it to null; only pg's own addFields fills it.
    expect((theirs as unknown as { _prebuiltEmptyResultObject: unknown })._prebuiltEmptyResultObject).toEqual({
      id: null,
      created_at: null,
      total: null,
      label: null,
    });
    expect((ours as unknown as { _prebuiltEmptyResultObject: unknown })._prebuiltEmptyResultObject).toBeNull();
    expect(ours.parseRow(['7', '2026-11-27 15:31:57.462+00', '12', 'x'])).toEqual([7, new Date('2026-11-27T15:31:57.462Z'), 12, 'x']);
    // A query with types of its own gets its parsers from them, as pg does.
    const custom = { getTypeParser: (oid: number) => (value: string) => `${oid}:${value}` };
    const own = (arrayRowsQuery('select 1', [], null, true, () => {}) as unknown as { _result: Result & { _types: unknown } })._result;
    own._types = custom;
    own.addFields(fields);
    expect(own.parseRow(['7', 'a', 'b', 'c'])).toEqual(['23:7', '1184:a', '20:b', '25:c']);
  });

  it("still has a reason to build queries from text: pg copies a config object's descriptors on every query", () => {
    // When this fails, pg no longer copies the config: pass { text, values, name, rowMode: 'array' } instead.
    const utils = readFileSync(createRequire(import.meta.url).resolve('pg/lib/utils.js'), 'utf8');
    expect(utils).toMatch(
      /Object\.defineProperties\(Object\.create\(Object\.getPrototypeOf\(config\)\), Object\.getOwnPropertyDescriptors\(config\)\)/,
    );
  });
});

describe('rows built by a compiled literal per statement', () => {
  it('makes each array row an object keyed by column name, in column order', () => {
    const result = { rows: [[1, 'a', null] as unknown[], [2, 'b', new Date(0)]], fields: fields('id', 'name', 'at') };
    rowsToObjects(`select 1 /* ${Math.random()} */`, result);
    expect(result.rows).toEqual([
      { id: 1, name: 'a', at: null },
      { id: 2, name: 'b', at: new Date(0) },
    ]);
    expect(Object.keys(result.rows[0]!)).toEqual(['id', 'name', 'at']);
  });

  it('keeps the last value of a repeated column name, as pg does', () => {
    const result = { rows: [[1, 2]], fields: fields('id', 'id') };
    rowsToObjects(`select 2 /* ${Math.random()} */`, result);
    expect(result.rows).toEqual([{ id: 2 }]);
  });

  it('treats column names as data: quotes, backslashes, line breaks and __proto__ are plain keys', () => {
    const names = ['a"b', 'c\\d', 'e\nf', '}; throw 1; //', '__proto__', 'constructor'];
    const result = { rows: [names.map((_, i) => i)], fields: fields(...names) };
    rowsToObjects(`select 3 /* ${Math.random()} */`, result);
    const row = result.rows[0] as unknown as Record<string, unknown>;
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.keys(row)).toEqual(names);
    expect(names.map((name) => Object.getOwnPropertyDescriptor(row, name)?.value)).toEqual(names.map((_, i) => i));
  });

  it('rebuilds the shape when the same text answers other columns (a table altered under it)', () => {
    const text = `select * from t /* ${Math.random()} */`;
    const first = { rows: [[1]], fields: fields('id') };
    rowsToObjects(text, first);
    const second = { rows: [[1, 'x']], fields: fields('id', 'label') };
    rowsToObjects(text, second);
    expect([first.rows[0], second.rows[0]]).toEqual([{ id: 1 }, { id: 1, label: 'x' }]);
  });

  it('remembers a bounded number of statement shapes', () => {
    for (let i = 0; i < REMEMBERED_SHAPES + 10; i++) {
      const result = { rows: [[i]], fields: fields('n') };
      rowsToObjects(`select ${i} as n /* bound */`, result);
      expect(result.rows[0]).toEqual({ n: i });
    }
  });
});

// The API's client against pg's own row objects, on the same statements.
describe.runIf(url)('rows of the API client on PostgreSQL', () => {
  const db = connect({ kind: 'postgres', url: url!, poolSize: 1 });
  const plain = new pg.Pool({ connectionString: url, max: 1 });
  afterAll(async () => {
    await db.destroy();
    await plain.end();
  });

  it('equal pg object rows for every kind of column, on the first run and once prepared', async () => {
    const text = `select $1::int as n, 42::int8 as big, 1.5::numeric as num, 'x'::text as t, null::text as missing,
      now() as at, '2026-01-02'::date as day, array[1,2]::int[] as list, '{"a":1}'::jsonb as doc, true as flag,
      1 as dup, 2 as dup from generate_series(1, 3)`;
    const expected = (await plain.query(text, [7])).rows;
    for (let run = 0; run < 3; run++) {
      const { rows } = await db.executeQuery(CompiledQuery.raw(text, [7]));
      expect(rows.map((r) => Object.assign({}, r, { at: null }))).toEqual(expected.map((r) => Object.assign({}, r, { at: null })));
      expect((rows[0] as { at: unknown }).at).toBeInstanceOf(Date);
      expect(Object.keys(rows[0] as object)).toEqual(Object.keys(expected[0]));
    }
  });

  it('answers a statement without parameters, run unnamed, as pg does', async () => {
    expect((await sql<{ one: number }>`select 1 as one`.execute(db)).rows).toEqual([{ one: 1 }]);
  });

  it('answers an INSERT … RETURNING and its row count', async () => {
    await sql`create temporary table rows_probe (id serial primary key, label text)`.execute(db);
    const inserted = await sql<{
      id: number;
      label: string;
    }>`insert into rows_probe (label) values (${'a'}), (${'b'}) returning id, label`.execute(db);
    expect(inserted.rows).toEqual([
      { id: 1, label: 'a' },
      { id: 2, label: 'b' },
    ]);
    const updated = await sql`update rows_probe set label = ${'c'} where id > ${0}`.execute(db);
    expect(updated.numAffectedRows).toBe(2n);
  });
});
