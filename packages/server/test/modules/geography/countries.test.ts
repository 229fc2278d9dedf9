import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { idsOf } from '../../support/fixtures.js';

const t = useTestApp();
let supervisor: string;
let admin: string;
beforeAll(async () => {
  supervisor = await t.token('supervisor');
  admin = await t.token('admin');
});

// Two-letter codes not used by the demo data, handed out one per test.
const free = ['BF', 'GH', 'ML', 'NE', 'TG', 'BJ', 'GN', 'CM', 'GA', 'TN', 'DZ', 'ES'];
const nextCode = () => free.shift()!;

async function createCountry(name = 'Testland') {
  const res = await t.call('createConfigCountry', { token: supervisor, body: { code: nextCode(), name } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.result as { id: number; code: string; name: string };
}

describe('GET /admin/configurations/countries (listConfigCountries)', () => {
  it('lists countries by name with their number of states', async () => {
    const res = await t.call('listConfigCountries', { token: supervisor, query: { limit: 100 } });
    expect(res.status).toBe(200);
    const data = res.body.result.data as { code: string; name: string; statesCount: number; isActive: boolean }[];
    expect(data.map((c) => c.code)).toEqual(expect.arrayContaining(['FR', 'MA', 'SN', 'CI']));
    expect(data.find((c) => c.code === 'FR')).toMatchObject({ name: 'France', statesCount: 3, isActive: true });
    const plain = data.map((c) => c.name).filter((n) => /^[A-Za-z ]+$/.test(n));
    expect(plain).toEqual([...plain].sort());
  });

  it('searches code and name case-insensitively and filters by active state', async () => {
    const byName = await t.call('listConfigCountries', { token: supervisor, query: { search: 'moroc' } });
    expect(byName.body.result.data.map((c: { code: string }) => c.code)).toEqual(['MA']);
    const byCode = await t.call('listConfigCountries', { token: supervisor, query: { search: 'sn' } });
    expect(byCode.body.result.data.map((c: { code: string }) => c.code)).toEqual(['SN']);

    const closed = await createCountry('Closedland');
    await t.call('setConfigCountryStatus', { token: supervisor, params: { id: closed.id }, body: { isActive: false } });
    const inactive = await t.call('listConfigCountries', { token: supervisor, query: { isActive: false } });
    expect(idsOf(inactive)).toEqual([closed.id]);
  });
});

describe('POST /admin/configurations/countries (createConfigCountry)', () => {
  it('creates an active country without states', async () => {
    const code = nextCode();
    const res = await t.call('createConfigCountry', { token: supervisor, body: { code, name: 'Newland' } });
    expect(res.status).toBe(201);
    expect(res.body.result).toMatchObject({ code, name: 'Newland', isActive: true, statesCount: 0 });
  });
});

describe('GET /admin/configurations/countries/{id} (getConfigCountryById)', () => {
  it('returns one country', async () => {
    const country = await createCountry('Readland');
    const res = await t.call('getConfigCountryById', { token: supervisor, params: { id: country.id } });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({ id: country.id, code: country.code, name: 'Readland', isActive: true, statesCount: 0 });
  });
});

describe('PATCH /admin/configurations/countries/{id} (updateConfigCountry)', () => {
  it('changes the fields sent', async () => {
    const country = await createCountry('Oldname');
    const code = nextCode();
    const res = await t.call('updateConfigCountry', { token: supervisor, params: { id: country.id }, body: { code, name: 'Newname' } });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({ id: country.id, code, name: 'Newname' });
  });
});

describe('DELETE /admin/configurations/countries/{id} (deleteConfigCountry)', () => {
  it('refuses a country still referred to with 409 RESOURCE_IN_USE and the number of references', async () => {
    const fr = await t.db.selectFrom('countries').select('id').where('code', '=', 'FR').executeTakeFirstOrThrow();
    const res = await t.call('deleteConfigCountry', { token: admin, params: { id: fr.id } });
    expect(res.status).toBe(409);
    expect(res.body.errors).toMatchObject({ code: 'RESOURCE_IN_USE', resource: 'country', id: fr.id });
    expect(res.body.errors.usageCount).toBeGreaterThanOrEqual(3 + 5); // its states and the demo accounts

    const withState = await createCountry();
    await t.call('createConfigState', { token: supervisor, body: { countryId: withState.id, code: 'A1', name: 'Only state' } });
    const one = await t.call('deleteConfigCountry', { token: admin, params: { id: withState.id } });
    expect(one.status).toBe(409);
    expect(one.body.errors).toEqual({ code: 'RESOURCE_IN_USE', resource: 'country', id: withState.id, usageCount: 1 });
  });
});
