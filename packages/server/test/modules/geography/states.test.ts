import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { idsOf } from '../../support/fixtures.js';

const t = useTestApp();
let supervisor: string;
let countries: Record<string, number>;
beforeAll(async () => {
  supervisor = await t.token('supervisor');
  const rows = await t.db.selectFrom('countries').select(['id', 'code']).execute();
  countries = Object.fromEntries(rows.map((c) => [c.code, c.id]));
});

let sequence = 0;
const nextCode = () => `T${sequence++}`;

async function createState(countryCode = 'SN', name = 'Test region') {
  const res = await t.call('createConfigState', {
    token: supervisor,
    body: { countryId: countries[countryCode]!, code: nextCode(), name },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.result as { id: number; code: string; countryId: number };
}

describe('GET /admin/configurations/states (listConfigStates)', () => {
  it('lists the states of a country by name, with their country', async () => {
    const res = await t.call('listConfigStates', { token: supervisor, query: { countryId: countries.CI! } });
    expect(res.status).toBe(200);
    expect(res.body.result.data.map((s: { code: string }) => s.code)).toEqual(['AB', 'VB', 'YM']);
    expect(res.body.result.data[1]).toMatchObject({
      code: 'VB',
      name: 'Vallée du Bandama',
      countryId: countries.CI,
      country: { id: countries.CI, code: 'CI', name: "Côte d'Ivoire" },
      isActive: true,
    });
    expect(res.body.result.meta).toMatchObject({ total: 3, current_page: 1, total_pages: 1 });
  });

  it('groups all states by country and pages them', async () => {
    const res = await t.call('listConfigStates', { token: supervisor, query: { limit: 100 } });
    const countryIds = res.body.result.data.map((s: { countryId: number }) => s.countryId);
    const groups = countryIds.filter((id: number, i: number) => i === 0 || countryIds[i - 1] !== id);
    expect(new Set(groups).size).toBe(groups.length);
    const page = await t.call('listConfigStates', { token: supervisor, query: { limit: 5, page: 2 } });
    expect(page.body.result.data).toHaveLength(5);
    expect(page.body.result.data[0]!.id).toBe(res.body.result.data[5]!.id);
  });

  it('searches code and name case-insensitively and filters by active state', async () => {
    const byName = await t.call('listConfigStates', { token: supervisor, query: { search: 'dakar' } });
    expect(byName.body.result.data.map((s: { code: string }) => s.code)).toEqual(['DK']);
    const byCode = await t.call('listConfigStates', { token: supervisor, query: { search: 'idf' } });
    expect(byCode.body.result.data.map((s: { code: string }) => s.code)).toEqual(['IDF']);
    const state = await createState('MA', 'Sleeping region');
    await t.call('setConfigStateStatus', { token: supervisor, params: { id: state.id }, body: { isActive: false } });
    const inactive = await t.call('listConfigStates', { token: supervisor, query: { isActive: false } });
    expect(idsOf(inactive)).toEqual([state.id]);
  });
});

describe('POST /admin/configurations/states (createConfigState)', () => {
  it('creates an active state, also in an inactive country', async () => {
    const country = await t.db
      .insertInto('countries')
      .values({ code: 'BF', name: 'Burkina Faso', is_active: false })
      .returning('id')
      .executeTakeFirstOrThrow();
    const res = await t.call('createConfigState', { token: supervisor, body: { countryId: country.id, code: '03', name: 'Centre' } });
    expect(res.status).toBe(201);
    expect(res.body.result).toMatchObject({ countryId: country.id, country: { code: 'BF' }, code: '03', name: 'Centre', isActive: true });
    const shown = await t.call('getConfigCountryById', { token: supervisor, params: { id: country.id } });
    expect(shown.body.result.statesCount).toBe(1);
  });

  it('refuses a code already used in the country with 409 ALREADY_EXISTS, but accepts it in another country', async () => {
    const duplicate = await t.call('createConfigState', {
      token: supervisor,
      body: { countryId: countries.CI!, code: 'VB', name: 'Again' },
    });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.errors).toEqual({ code: 'ALREADY_EXISTS', resource: 'state', field: 'code', value: 'VB' });
    const elsewhere = await t.call('createConfigState', {
      token: supervisor,
      body: { countryId: countries.SN!, code: 'VB', name: 'Elsewhere' },
    });
    expect(elsewhere.status).toBe(201);
  });

  it('answers 404 RESOURCE_NOT_FOUND for an unknown country', async () => {
    const res = await t.call('createConfigState', { token: supervisor, body: { countryId: 4242, code: 'X1', name: 'Nowhere' } });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'country', id: 4242 });
  });
});

describe('GET /admin/configurations/states/{id} (getConfigStateById)', () => {
  it('returns one state', async () => {
    const state = await createState('SN', 'Kaolack');
    const res = await t.call('getConfigStateById', { token: supervisor, params: { id: state.id } });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({
      id: state.id,
      countryId: countries.SN,
      country: { id: countries.SN, code: 'SN', name: 'Senegal' },
      code: state.code,
      name: 'Kaolack',
      isActive: true,
    });
  });
});

describe('PATCH /admin/configurations/states/{id} (updateConfigState)', () => {
  it('changes the fields sent, including the country', async () => {
    const state = await createState('SN');
    const res = await t.call('updateConfigState', {
      token: supervisor,
      params: { id: state.id },
      body: { countryId: countries.MA!, name: 'Moved' },
    });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({
      id: state.id,
      countryId: countries.MA,
      country: { code: 'MA' },
      code: state.code,
      name: 'Moved',
    });
  });

  it('refuses a code already used in the target country with 409 ALREADY_EXISTS', async () => {
    const state = await createState('SN');
    const sameCountry = await t.call('updateConfigState', { token: supervisor, params: { id: state.id }, body: { code: 'DK' } });
    expect(sameCountry.status).toBe(409);
    expect(sameCountry.body.errors).toEqual({ code: 'ALREADY_EXISTS', resource: 'state', field: 'code', value: 'DK' });
    const other = await createState('SN');
    await t.call('updateConfigState', { token: supervisor, params: { id: other.id }, body: { code: 'AB' } });
    const moving = await t.call('updateConfigState', { token: supervisor, params: { id: other.id }, body: { countryId: countries.CI! } });
    expect(moving.status).toBe(409);
    expect(moving.body.errors).toEqual({ code: 'ALREADY_EXISTS', resource: 'state', field: 'code', value: 'AB' });
  });

  it('answers 404 for an unknown state or an unknown new country', async () => {
    const state = await createState('SN');
    const unknownState = await t.call('updateConfigState', { token: supervisor, params: { id: 4242 }, body: { name: 'X' } });
    expect(unknownState.status).toBe(404);
    expect(unknownState.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'state', id: 4242 });
    const unknownCountry = await t.call('updateConfigState', { token: supervisor, params: { id: state.id }, body: { countryId: 4242 } });
    expect(unknownCountry.status).toBe(404);
    expect(unknownCountry.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'country', id: 4242 });
  });
});
