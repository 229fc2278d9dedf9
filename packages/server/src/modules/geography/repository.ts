import type { operations } from '@transport-ops/contract';
import { sql, type Kysely } from 'kysely';
import { type FilterSpecs, filters, same, type WhereOf } from '../../lib/filter-spec.js';
import { contains } from '../../lib/text.js';
import type { Database } from '../../db/schema.js';
import type { Req, Result } from '../../http/handlers.js';

type Db = Kysely<Database>;
export type Country = Result<'getConfigCountryById'>;
export type State = Result<'getConfigStateById'>;

// ------------------------------------------------------------------ countries

function selectCountries(db: Db) {
  return db
    .selectFrom('countries as c')
    .select([
      'c.id',
      'c.code',
      'c.name',
      'c.is_active',
      sql<number>`(select count(*)::int from states s where s.country_id = c.id)`.as('states_count'),
    ]);
}
type CountryRow = Awaited<ReturnType<ReturnType<typeof selectCountries>['executeTakeFirstOrThrow']>>;

export const toCountry = (row: CountryRow): Country => ({
  id: row.id,
  code: row.code,
  name: row.name,
  isActive: row.is_active,
  statesCount: Number(row.states_count),
});

/** The query parameters of the country list, as the contract declares them. */
export type CountryListParameters = NonNullable<operations['listConfigCountries']['parameters']['query']>;

/**
 * Each filter of the country list, declared once (lib/filter-spec.ts). Typed from the contract: a query
 * parameter of `listConfigCountries` with no entry here (and not a paging one) is a type error. The order
 * is the order of the conditions.
 */
export const COUNTRY_FILTERS: FilterSpecs<CountryListParameters, WhereOf<ReturnType<typeof selectCountries>>> = {
  search: {
    bind: same,
    where: (eb, v) => eb.or([contains('c.code', v as string), contains('c.name', v as string)]),
    columns: ['c.code', 'c.name'],
    text: true,
  },
  isActive: { bind: same, where: (eb, v) => eb('c.is_active', '=', v as boolean), columns: ['c.is_active'] },
};
const COUNTRY_FILTER = filters(COUNTRY_FILTERS);

export function listCountries(db: Db, q: Req<'listConfigCountries'>['query']) {
  return COUNTRY_FILTER.apply(selectCountries(db), COUNTRY_FILTER.bind(q, {})).orderBy('c.name').orderBy('c.id');
}

export async function findCountry(db: Db, id: number): Promise<Country | undefined> {
  const row = await selectCountries(db).where('c.id', '=', id).executeTakeFirst();
  return row && toCountry(row);
}

/**
 * Records that refer to the country: states, accounts and organizations counted, complaints read
 * from the per-creator roll-up the database keeps (migration 0009): exact under the country's row
 * lock (see vehicleTypeUsage), the foreign keys stay the final guard.
 */
export async function countryUsage(db: Db, id: number): Promise<number> {
  const { n } = await sql<{ n: number }>`select
      (select count(*) from states where country_id = ${id})
    + (select count(*) from users where country_id = ${id})
    + (select count(*) from organizations where country_id = ${id})
    + (select coalesce(sum(complaints), 0) from complaint_user_counts where country_id = ${id}) as n`
    .execute(db)
    .then((r) => r.rows[0]!);
  return Number(n);
}

// ------------------------------------------------------------------ states

function selectStates(db: Db) {
  return db
    .selectFrom('states as s')
    .innerJoin('countries as c', 'c.id', 's.country_id')
    .select(['s.id', 's.country_id', 'c.code as country_code', 'c.name as country_name', 's.code', 's.name', 's.is_active']);
}
type StateRow = Awaited<ReturnType<ReturnType<typeof selectStates>['executeTakeFirstOrThrow']>>;

export const toState = (row: StateRow): State => ({
  id: row.id,
  countryId: row.country_id,
  country: { id: row.country_id, code: row.country_code, name: row.country_name },
  code: row.code,
  name: row.name,
  isActive: row.is_active,
});

/** The query parameters of the state list, as the contract declares them. */
export type StateListParameters = NonNullable<operations['listConfigStates']['parameters']['query']>;

/**
 * Each filter of the state list, declared once (lib/filter-spec.ts). Typed from the contract: a query
 * parameter of `listConfigStates` with no entry here (and not a paging one) is a type error. The order
 * is the order of the conditions.
 */
export const STATE_FILTERS: FilterSpecs<StateListParameters, WhereOf<ReturnType<typeof selectStates>>> = {
  search: {
    bind: same,
    where: (eb, v) => eb.or([contains('s.code', v as string), contains('s.name', v as string)]),
    columns: ['s.code', 's.name'],
    text: true,
  },
  countryId: { bind: same, where: (eb, v) => eb('s.country_id', '=', v as number), columns: ['s.country_id'] },
  isActive: { bind: same, where: (eb, v) => eb('s.is_active', '=', v as boolean), columns: ['s.is_active'] },
};
const STATE_FILTER = filters(STATE_FILTERS);

export function listStates(db: Db, q: Req<'listConfigStates'>['query']) {
  return STATE_FILTER.apply(selectStates(db), STATE_FILTER.bind(q, {}))
    .orderBy('c.name')
    .orderBy('s.country_id')
    .orderBy('s.name')
    .orderBy('s.id');
}

export async function findState(db: Db, id: number): Promise<State | undefined> {
  const row = await selectStates(db).where('s.id', '=', id).executeTakeFirst();
  return row && toState(row);
}

export const countryExists = async (db: Db, id: number) =>
  (await db.selectFrom('countries').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
