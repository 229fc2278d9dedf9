import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/db/connect.js';
import { customPlan, PREPARED_PER_CONNECTION, preparedName, statementName } from '../../src/db/prepared.js';

const url = process.env.DATABASE_URL;

describe('statement names', () => {
  it('names a data statement the second time its text is seen, with a name derived from the text', () => {
    const text = `select id from transports where id = $1 /* ${Math.random()} */`;
    expect(statementName(text)).toBeNull();
    const name = statementName(text);
    expect(name).toMatch(/^q_[A-Za-z0-9_-]{27}$/);
    expect(statementName(text)).toBe(name);
    expect(statementName(`${text} `)).toBeNull();
  });

  it('never names EXPLAIN, DDL or transaction control', () => {
    for (const text of ['explain (format json) select 1', 'begin', 'commit', 'create table x (id int)']) {
      statementName(text);
      expect(statementName(text)).toBeNull();
    }
  });

  it('never names a statement marked to be planned for its values (filtered pages and counts of lists)', () => {
    const text = customPlan(`select id from transports where loading_point ilike $1 /* ${Math.random()} */`);
    for (let i = 0; i < 3; i++) expect(statementName(text)).toBeNull();
  });

  it('runs a repeated statement unnamed once the connection holds its share of prepared statements', () => {
    const full = new Set(Array.from({ length: PREPARED_PER_CONNECTION }, (_, i) => `q_${i}`));
    const text = `select ${Math.random()}`;
    preparedName(full, text);
    expect(preparedName(full, text)).toBeNull();
    const roomy = new Set<string>();
    expect(preparedName(roomy, text)).toBe(statementName(text));
    expect(preparedName(roomy, text)).toMatch(/^q_/);
    // A statement the full connection already has keeps its name.
    const known = preparedName(roomy, `select 'known'`) ?? preparedName(roomy, `select 'known'`)!;
    expect(preparedName(new Set([...full].slice(1).concat(known)), `select 'known'`)).toBe(known);
  });
});

// One connection (pool of one), so pg_prepared_statements shows what this pool prepared.
describe.runIf(url)('prepared statements on PostgreSQL', () => {
  const db = connect({ kind: 'postgres', url: url!, poolSize: 1 });
  afterAll(() => db.destroy());

  it('prepares a statement that repeats, once per connection, and keeps answering it', async () => {
    const marker = `m${Date.now()}`;
    const query = (n: number) => sql<{ n: number; m: string }>`select ${n}::int as n, ${marker}::text as m`.execute(db);
    expect((await query(1)).rows).toEqual([{ n: 1, m: marker }]);
    // The marker is a parameter, so the text is the same each time; the probe above is its own text.
    const text = 'select $1::int as n, $2::text as m';
    const before = await sql<{ name: string }>`select name from pg_prepared_statements where statement = ${text}`.execute(db);
    expect(before.rows).toEqual([]);
    expect((await query(2)).rows).toEqual([{ n: 2, m: marker }]);
    expect((await query(3)).rows).toEqual([{ n: 3, m: marker }]);
    const after = await sql<{ name: string }>`select name from pg_prepared_statements where statement = ${text}`.execute(db);
    expect(after.rows).toEqual([{ name: statementName(text) }]);
  });

  it('reports the errors of a prepared statement as of any other', async () => {
    const divide = (by: number) => sql<{ q: number }>`select 10 / ${by}::int as q`.execute(db);
    expect((await divide(5)).rows).toEqual([{ q: 2 }]);
    await expect(divide(0)).rejects.toMatchObject({ code: '22012' });
    expect((await divide(2)).rows).toEqual([{ q: 5 }]);
  });

  it('does not prepare EXPLAIN', async () => {
    for (let i = 0; i < 3; i++) await sql`explain select ${i}::int as explained`.execute(db);
    const rows = await sql<{ name: string }>`select name from pg_prepared_statements where statement like 'explain%'`.execute(db);
    expect(rows.rows).toEqual([]);
  });
});

// The client's read timeout: the socket's inactivity timer, not a timer per query (see connect.ts).
describe.runIf(url)('a query that hears nothing from PostgreSQL', () => {
  const db = connect({ kind: 'postgres', url: url!, poolSize: 1, timeouts: { connectMs: 3000, statementMs: 0, queryMs: 500 } });
  afterAll(() => db.destroy());
  const backend = async () => (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0]!.pid;

  it('fails with "Query read timeout" when no byte comes back in time, and the pool replaces the connection', async () => {
    const before = await backend();
    await expect(sql`select pg_sleep(3)`.execute(db)).rejects.toThrow(/^Query read timeout/);
    const after = await backend();
    expect(after).not.toBe(before);
  });

  it('keeps a connection that idled in the pool longer than the timeout', async () => {
    const first = await backend();
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(await backend()).toBe(first);
    // And the timer is armed again for the next query after the idle stretch.
    await expect(sql`select pg_sleep(3)`.execute(db)).rejects.toThrow(/^Query read timeout/);
  });
});
