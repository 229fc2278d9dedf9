import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';

const t = useTestApp();

async function createType(name: string, description: string | null = 'A type created by a test.') {
  const res = await t.call('createConfigComplaintType', { token: await t.token('supervisor'), body: { name, description } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.result as { id: number; name: string; description: string | null; isActive: boolean; usageCount: number };
}

const typeIdByName = async (name: string) =>
  (await t.db.selectFrom('complaint_types').select('id').where('name', '=', name).executeTakeFirstOrThrow()).id;

describe('GET /admin/configurations/complaint-types (listConfigComplaintTypes)', () => {
  it('lists every type, active or not, by name, with its usage count and page meta', async () => {
    const res = await t.call('listConfigComplaintTypes', { token: await t.token('supervisor'), query: { limit: 100 } });
    expect(res.status).toBe(200);
    const names: string[] = res.body.result.data.map((d: { name: string }) => d.name);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
    const damaged = res.body.result.data.find((d: { name: string }) => d.name === 'Damaged goods');
    expect(damaged).toMatchObject({ isActive: true, usageCount: 2 }); // two seeded complaints
    expect(res.body.result.data.find((d: { name: string }) => d.name === 'Other (legacy)')).toMatchObject({
      isActive: false,
      usageCount: 0,
    });
    expect(res.body.result.meta).toEqual({ total: names.length, current_page: 1, total_pages: 1, limit: 100 });
  });

  it('filters by isActive and by a case-insensitive search in name and description, and pages', async () => {
    const token = await t.token('admin');
    const inactive = await t.call('listConfigComplaintTypes', { token, query: { isActive: false } });
    expect(inactive.body.result.data.map((d: { name: string }) => d.name)).toEqual(['Other (legacy)']);

    const search = await t.call('listConfigComplaintTypes', { token, query: { search: 'INVOICED' } });
    expect(search.body.result.data.map((d: { name: string }) => d.name)).toEqual(['Billing dispute']);

    const page2 = await t.call('listConfigComplaintTypes', { token, query: { page: 2, limit: 2 } });
    expect(page2.body.result.data).toHaveLength(2);
    expect(page2.body.result.meta).toMatchObject({ current_page: 2, limit: 2 });
  });
});

describe('POST /admin/configurations/complaint-types (createConfigComplaintType)', () => {
  it('creates an active type with no usage', async () => {
    const created = await createType('Wrong address', 'The unloading address was wrong.');
    expect(created).toMatchObject({
      name: 'Wrong address',
      description: 'The unloading address was wrong.',
      isActive: true,
      usageCount: 0,
    });
    const row = await t.db.selectFrom('complaint_types').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(row.is_active).toBe(true);
  });

  it('answers 400 for a name shorter than 2 characters', async () => {
    const res = await t.call('createConfigComplaintType', { token: await t.token('supervisor'), body: { name: 'X' } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(['body/name must NOT have fewer than 2 characters']);
  });
});

describe('GET /admin/configurations/complaint-types/{id} (getConfigComplaintTypeById)', () => {
  it('returns the type with its usage count', async () => {
    const id = await typeIdByName('Delivery delay');
    const res = await t.call('getConfigComplaintTypeById', { token: await t.token('supervisor'), params: { id } });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({
      id,
      name: 'Delivery delay',
      description: 'The goods arrived later than agreed.',
      isActive: true,
      usageCount: 1,
    });
  });
});

describe('PATCH /admin/configurations/complaint-types/{id} (updateConfigComplaintType)', () => {
  it('changes only the fields sent, and null clears the description', async () => {
    const created = await createType('Seal broken', 'The container seal was broken.');
    const token = await t.token('supervisor');
    const renamed = await t.call('updateConfigComplaintType', { token, params: { id: created.id }, body: { name: 'Seal tampered' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.result).toMatchObject({ name: 'Seal tampered', description: 'The container seal was broken.' });
    const cleared = await t.call('updateConfigComplaintType', { token, params: { id: created.id }, body: { description: null } });
    expect(cleared.body.result).toMatchObject({ name: 'Seal tampered', description: null });
  });

  it('keeps its own name under another case but refuses the name of another type with 409', async () => {
    const created = await createType('Paperwork missing');
    const token = await t.token('supervisor');
    const same = await t.call('updateConfigComplaintType', { token, params: { id: created.id }, body: { name: 'Paperwork MISSING' } });
    expect(same.status).toBe(200);
    expect(same.body.result.name).toBe('Paperwork MISSING');
    const taken = await t.call('updateConfigComplaintType', { token, params: { id: created.id }, body: { name: 'missing goods' } });
    expect(taken.status).toBe(409);
    expect(taken.body.errors).toMatchObject({ code: 'ALREADY_EXISTS', field: 'name', value: 'missing goods' });
  });
});

describe('DELETE /admin/configurations/complaint-types/{id} (deleteConfigComplaintType)', () => {
  it('refuses a type used by complaints with 409 RESOURCE_IN_USE and its usage count', async () => {
    const id = await typeIdByName('Damaged goods');
    const res = await t.call('deleteConfigComplaintType', { token: await t.token('admin'), params: { id } });
    expect(res.status, JSON.stringify(res.body)).toBe(409);
    expect(res.body.errors).toEqual({ code: 'RESOURCE_IN_USE', resource: 'complaintType', id, usageCount: 2 });
  });
});

describe('PATCH /admin/configurations/complaint-types/{id}/status (setConfigComplaintTypeStatus)', () => {
  it('deactivates a type, which then disappears from the user-side list, and reactivates it', async () => {
    const created = await createType('Seasonal surcharge');
    const token = await t.token('supervisor');
    const off = await t.call('setConfigComplaintTypeStatus', { token, params: { id: created.id }, body: { isActive: false } });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ message: 'Complaint type deactivated', result: { id: created.id, isActive: false } });
    const userList = await t.call('listComplaintTypes', { token: await t.token('agent') });
    expect(userList.body.result.map((c: { id: number }) => c.id)).not.toContain(created.id);

    const on = await t.call('setConfigComplaintTypeStatus', { token, params: { id: created.id }, body: { isActive: true } });
    expect(on.body).toMatchObject({ message: 'Complaint type activated', result: { isActive: true } });
    const again = await t.call('listComplaintTypes', { token: await t.token('agent') });
    expect(again.body.result.map((c: { id: number }) => c.id)).toContain(created.id);
  });

  it('accepts the current value again without changing updatedAt', async () => {
    const created = await createType('Idempotent toggle');
    const token = await t.token('supervisor');
    const before = await t.call('getConfigComplaintTypeById', { token, params: { id: created.id } });
    const res = await t.call('setConfigComplaintTypeStatus', { token, params: { id: created.id }, body: { isActive: true } });
    expect(res.status).toBe(200);
    expect(res.body.result.updatedAt).toBe(before.body.result.updatedAt);
  });
});
