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
type Query = { page?: number; sortBy?: string; categoryId?: number; search?: string; since?: string };

const SPECS: FilterSpecs<Query, WhereOf<ReturnType<typeof from>>> = {
  categoryId: { bind: same, where: (eb, v) => eb('t.category_id', '=', v as number), columns: ['t.category_id'] },
  search: {
    bind: containing,
    where: (eb, v) => eb.or([eb('t.title', 'ilike', v as string), eb('t.content', 'ilike', v as string)]),
    columns: ['t.title', 't.content', 't.category_id'],
    text: true,
  },
  since: { bind: (v) => new Date(v), where: (eb, v) => eb('t.created_at', '>=', v as Date), columns: [] },
};
const FILTER = filters(SPECS);

describe('filters', () => {
  it('name the filters in the order of their specs and list the columns they read once each', () => {
    expect(FILTER.names).toEqual(['categoryId', 'search', 'since']);
    expect(FILTER.columns).toEqual(['t.category_id', 't.title', 't.content']);
  });

  it.each([
    { given: {}, want: { categoryId: undefined, search: undefined, since: undefined }, text: false },
    { given: { categoryId: 3, page: 2 }, want: { categoryId: 3, search: undefined, since: undefined }, text: false },
    { given: { search: '50%' }, want: { categoryId: undefined, search: '%50\\%%', since: undefined }, text: true },
    {
      given: { since: '2025-01-02T03:04:05.000Z' },
      want: { categoryId: undefined, search: undefined, since: new Date('2025-01-02T03:04:05.000Z') },
      text: false,
    },
  ])('bind $given to $want, beside what the list already holds', ({ given, want, text }) => {
    const bound = FILTER.bind(given, { teamId: 7 });
    expect(bound).toEqual(Object.assign({ teamId: 7 }, want));
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
});
