import { sql, type Kysely } from 'kysely';
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

export function listCountries(db: Db, q: Req<'listConfigCountries'>['query']) {
  let query = selectCountries(db);
  const { search } = q;
  if (search !== undefined) query = query.where((eb) => eb.or([contains('c.code', search), contains('c.name', search)]));
  if (q.isActive !== undefined) query = query.where('c.is_active', '=', q.isActive);
  return query.orderBy('c.name').orderBy('c.id');
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

export function listStates(db: Db, q: Req<'listConfigStates'>['query']) {
  let query = selectStates(db);
  const { search } = q;
  if (search !== undefined) query = query.where((eb) => eb.or([contains('s.code', search), contains('s.name', search)]));
  if (q.countryId !== undefined) query = query.where('s.country_id', '=', q.countryId);
  if (q.isActive !== undefined) query = query.where('s.is_active', '=', q.isActive);
  return query.orderBy('c.name').orderBy('s.country_id').orderBy('s.name').orderBy('s.id');
}

export async function findState(db: Db, id: number): Promise<State | undefined> {
  const row = await selectStates(db).where('s.id', '=', id).executeTakeFirst();
  return row && toState(row);
}

export const countryExists = async (db: Db, id: number) =>
  (await db.selectFrom('countries').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
