import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';

let t: TestApp;
let supervisor: string;
let admin: string;
beforeAll(async () => {
  t = await createTestApp();
  supervisor = await t.token('supervisor');
  admin = await t.token('admin');
});
afterAll(async () => t?.close());

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
    expect(inactive.body.result.data.map((c: { id: number }) => c.id)).toEqual([closed.id]);
  });

  it('refuses a team manager with 403 FORBIDDEN', async () => {
    const res = await t.call('listConfigCountries', { token: await t.token('manager') });
    expect(res.status).toBe(403);
    expect(res.body.errors).toMatchObject({ code: 'FORBIDDEN' });
  });
});

describe('POST /admin/configurations/countries (createConfigCountry)', () => {
  it('creates an active country without states', async () => {
    const code = nextCode();
    const res = await t.call('createConfigCountry', { token: supervisor, body: { code, name: 'Newland' } });
    expect(res.status).toBe(201);
    expect(res.body.result).toMatchObject({ code, name: 'Newland', isActive: true, statesCount: 0 });
  });

  it('refuses a code already used with 409 ALREADY_EXISTS, also when two creations race', async () => {
    const duplicate = await t.call('createConfigCountry', { token: supervisor, body: { code: 'FR', name: 'France again' } });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.errors).toEqual({ code: 'ALREADY_EXISTS', resource: 'country', field: 'code', value: 'FR' });

    const code = nextCode();
    const results = await Promise.all(
      ['Racing A', 'Racing B'].map((name) => t.call('createConfigCountry', { token: supervisor, body: { code, name } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(await t.db.selectFrom('countries').select('id').where('code', '=', code).execute()).toHaveLength(1);
  });

  it('refuses an agent with 403 FORBIDDEN', async () => {
    const res = await t.call('createConfigCountry', { token: await t.token('agent'), body: { code: 'QQ', name: 'Nope' } });
    expect(res.status).toBe(403);
  });
});

describe('GET /admin/configurations/countries/{id} (getConfigCountryById)', () => {
  it('returns one country', async () => {
    const country = await createCountry('Readland');
    const res = await t.call('getConfigCountryById', { token: supervisor, params: { id: country.id } });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({ id: country.id, code: country.code, name: 'Readland', isActive: true, statesCount: 0 });
  });

  it('answers 404 RESOURCE_NOT_FOUND for an unknown country', async () => {
    const res = await t.call('getConfigCountryById', { token: supervisor, params: { id: 4242 } });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'country', id: 4242 });
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

  it('refuses a code already used with 409 ALREADY_EXISTS and answers 404 for an unknown country', async () => {
    const country = await createCountry();
    const duplicate = await t.call('updateConfigCountry', { token: supervisor, params: { id: country.id }, body: { code: 'MA' } });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.errors).toEqual({ code: 'ALREADY_EXISTS', resource: 'country', field: 'code', value: 'MA' });
    const unknown = await t.call('updateConfigCountry', { token: supervisor, params: { id: 4242 }, body: { name: 'X' } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'country', id: 4242 });
  });
});

describe('DELETE /admin/configurations/countries/{id} (deleteConfigCountry)', () => {
  it('deletes a country nothing refers to', async () => {
    const country = await createCountry();
    const res = await t.call('deleteConfigCountry', { token: admin, params: { id: country.id } });
    expect(res.status).toBe(200);
    expect(res.body.result).toBeNull();
    expect((await t.call('getConfigCountryById', { token: supervisor, params: { id: country.id } })).status).toBe(404);
  });

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

  it('answers 404 for an unknown country and refuses a supervisor with 403 FORBIDDEN', async () => {
    const unknown = await t.call('deleteConfigCountry', { token: admin, params: { id: 4242 } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'country', id: 4242 });
    const forbidden = await t.call('deleteConfigCountry', { token: supervisor, params: { id: 4242 } });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.errors).toEqual({ code: 'FORBIDDEN', requiredRoles: ['admin', 'super_admin'] });
  });
});

describe('PATCH /admin/configurations/countries/{id}/status (setConfigCountryStatus)', () => {
  it('deactivates and reactivates a country, idempotently', async () => {
    const country = await createCountry();
    const off = await t.call('setConfigCountryStatus', { token: supervisor, params: { id: country.id }, body: { isActive: false } });
    expect(off.status).toBe(200);
    expect(off.body.result).toMatchObject({ id: country.id, isActive: false });
    const again = await t.call('setConfigCountryStatus', { token: supervisor, params: { id: country.id }, body: { isActive: false } });
    expect(again.body.result.isActive).toBe(false);
    const on = await t.call('setConfigCountryStatus', { token: supervisor, params: { id: country.id }, body: { isActive: true } });
    expect(on.body.result.isActive).toBe(true);
  });

  it('answers 404 RESOURCE_NOT_FOUND for an unknown country', async () => {
    const res = await t.call('setConfigCountryStatus', { token: supervisor, params: { id: 4242 }, body: { isActive: false } });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'country', id: 4242 });
  });
});
