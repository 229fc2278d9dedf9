import { Kysely, PostgresDialect } from 'kysely';
import { describe, expect, it } from 'vitest';
import { type FilterSpecs, filters, same, type WhereOf } from '../../src/lib/filter-spec.js';
import type { Database } from '../../src/db/schema.js';
import { containing } from '../../src/lib/text.js';

/*
 * A list's filters from their specs: bound under the parameter's name (absent parameters stay
 * unbound), applied in the order of the spec, their columns listed once.
 */

// A database to compile statements with; nothing is sent (the pool is never asked for a connection).
const db: Kysely<Database> = new Kysely<Database>({ dialect: new PostgresDialect({ pool: {} as never }) });
const from = () => db.selectFrom('forum_topics as t');
type Query = {
  page?: number;
  sortBy?: string;
  categoryId?: number;
  search?: string;
  since?: string;
  status?: 'ACTIVE' | 'CLOSED';
  hidden?: boolean;
};

const SPECS: FilterSpecs<Query, WhereOf<ReturnType<typeof from>>> = {
  categoryId: { bind: same, where: (eb, v) => eb('t.category_id', '=', v as number), columns: ['t.category_id'] },
  search: {
    bind: containing,
    where: (eb, v) => eb.or([eb('t.title', 'ilike', v as string), eb('t.content', 'ilike', v as string)]),
    columns: ['t.title', 't.content', 't.category_id'],
    text: true,
  },
  since: { bind: (v) => new Date(v), where: (eb, v) => eb('t.created_at', '>=', v as Date), columns: [] },
  status: {
    bind: same,
    // A condition that differs in shape by value and reads another parameter of the list.
    where: (eb, v, p) => (v === 'ACTIVE' ? eb('t.status', '=', 'ACTIVE') : eb('t.updated_at', '<', p.now as Date)),
    columns: ['t.status'],
    structure: true,
  },
  hidden: { implied: 'the base query keeps visible topics only' },
};
const FILTER = filters(SPECS);

describe('filters', () => {
  it('name the filters in the order of their specs and list the columns they read once each', () => {
    expect(FILTER.names).toEqual(['categoryId', 'search', 'since', 'status']);
    expect(FILTER.columns).toEqual(['t.category_id', 't.title', 't.content', 't.status']);
  });

  it('bind the values of filters that keep the text of the statement and key on those that change it', () => {
    expect(FILTER.values).toEqual(['categoryId', 'search', 'since']);
    expect(FILTER.structure).toEqual(['status']);
  });

  it.each([
    { given: {}, want: {}, text: false },
    { given: { categoryId: 3, page: 2, hidden: true }, want: { categoryId: 3 }, text: false },
    { given: { search: '50%' }, want: { search: '%50\\%%' }, text: true },
    { given: { since: '2025-01-02T03:04:05.000Z' }, want: { since: new Date('2025-01-02T03:04:05.000Z') }, text: false },
  ])('bind $given to $want, beside what the list already holds', ({ given, want, text }) => {
    const bound = FILTER.bind(given, { teamId: 7 });
    const unbound = { categoryId: undefined, search: undefined, since: undefined, status: undefined };
    expect(bound).toStrictEqual(Object.assign({ teamId: 7 }, unbound, want));
    expect(FILTER.textFiltered(bound)).toBe(text);
  });

  it('apply the bound filters only, in the order of the specs', () => {
    const none = FILTER.apply(from().select('t.id'), FILTER.bind({}, {})).compile();
    expect(none.sql).toBe('select "t"."id" from "forum_topics" as "t"');
    const all = FILTER.apply(
      from().select('t.id'),
      FILTER.bind({ since: '2025-01-02T00:00:00Z', search: 'x', categoryId: 1 }, {}),
    ).compile();
    expect(all.sql).toBe(
      'select "t"."id" from "forum_topics" as "t" where "t"."category_id" = $1 and ("t"."title" ilike $2 or "t"."content" ilike $3) and "t"."created_at" >= $4',
    );
    expect(all.parameters).toEqual([1, '%x%', '%x%', new Date('2025-01-02T00:00:00Z')]);
  });

  it("hand a condition the list's other parameters, and add none for a filter the list implies", () => {
    const now = new Date('2025-03-01T00:00:00Z');
    const closed = FILTER.apply(from().select('t.id'), FILTER.bind({ status: 'CLOSED', hidden: true }, { now })).compile();
    expect(closed.sql).toBe('select "t"."id" from "forum_topics" as "t" where "t"."updated_at" < $1');
    expect(closed.parameters).toEqual([now]);
  });
});
