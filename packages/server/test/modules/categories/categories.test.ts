import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { idsOf, rowsNamed as rowsNamedIn, uniqueName } from '../../support/fixtures.js';

const t = useTestApp();
let supervisor: string;
beforeAll(async () => {
  supervisor = await t.token('supervisor');
});

const create = (body: object, token = supervisor) => t.call('createConfigCategory', { payload: body, token });
const rowsNamed = (name: string) => rowsNamedIn(t, 'categories', name);

const seeded = (scope: 'FORUM' | 'ANNOUNCEMENT' | 'TUTORIAL', name: string) =>
  t.db.selectFrom('categories').selectAll().where('scope', '=', scope).where('name', '=', name).executeTakeFirstOrThrow();

describe('GET /admin/configurations/categories', () => {
  it('pages through the categories of every scope with their usage counts', async () => {
    const res = await t.call('listConfigCategories', { query: { limit: 100 }, token: supervisor });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const data = res.body.result.data as { scope: string; name: string; usageCount: number }[];
    expect(new Set(data.map((c) => c.scope))).toEqual(new Set(['FORUM', 'ANNOUNCEMENT', 'TUTORIAL']));
    expect(data.find((c) => c.scope === 'FORUM' && c.name === 'Routes and logistics')?.usageCount).toBe(1);
    expect(data.find((c) => c.scope === 'ANNOUNCEMENT' && c.name === 'Company news')?.usageCount).toBe(3);
    expect(data.find((c) => c.scope === 'TUTORIAL' && c.name === 'Transports')?.usageCount).toBe(2);
    expect(res.body.result.meta).toMatchObject({ current_page: 1, limit: 100, total: data.length });
  });

  it('filters by scope and text in the name or the description, case-insensitively (the activity filter: config-lists)', async () => {
    const forum = await t.call('listConfigCategories', { query: { scope: 'FORUM', limit: 100 }, token: supervisor });
    expect(forum.body.result.data.length).toBeGreaterThanOrEqual(4);
    expect(forum.body.result.data.every((c: { scope: string }) => c.scope === 'FORUM')).toBe(true);

    const byName = await t.call('listConfigCategories', { query: { search: 'LOGISTICS', scope: 'FORUM' }, token: supervisor });
    expect(byName.body.result.data.map((c: { name: string }) => c.name)).toEqual(['Routes and logistics']);
    const byDescription = await t.call('listConfigCategories', {
      query: { search: 'border crossings', scope: 'FORUM' },
      token: supervisor,
    });
    expect(byDescription.body.result.data.map((c: { name: string }) => c.name)).toEqual(['Routes and logistics']);
  });

  it('sorts by usageCount, name or creation time and pages', async () => {
    const byUsage = await t.call('listConfigCategories', { query: { sortBy: 'usageCount', limit: 100 }, token: supervisor });
    const usage = byUsage.body.result.data.map((c: { usageCount: number }) => c.usageCount);
    expect(usage).toEqual([...usage].sort((a, b) => b - a));
    expect(usage[0]).toBe(3);

    const byName = await t.call('listConfigCategories', {
      query: { sortBy: 'name', sortOrder: 'DESC', scope: 'FORUM', limit: 100 },
      token: supervisor,
    });
    const seededNames = ['Vehicles and maintenance', 'Routes and logistics', 'Regulations', 'General discussion'];
    const names = byName.body.result.data.map((c: { name: string }) => c.name);
    expect(names.filter((n: string) => seededNames.includes(n))).toEqual(seededNames);

    const newest = await create({ scope: 'FORUM', name: uniqueName('Newest') });
    const byDate = await t.call('listConfigCategories', { query: { limit: 1 }, token: supervisor });
    expect(byDate.body.result.data[0]!.id).toBe(newest.body.result.id);

    const page2 = await t.call('listConfigCategories', {
      query: { limit: 5, page: 2, sortBy: 'name', sortOrder: 'ASC' },
      token: supervisor,
    });
    const all = await t.call('listConfigCategories', { query: { limit: 100, sortBy: 'name', sortOrder: 'ASC' }, token: supervisor });
    expect(idsOf(page2)).toEqual(idsOf(all).slice(5, 10));
    expect(page2.body.result.meta).toMatchObject({ current_page: 2, limit: 5, total: all.body.result.meta.total });
  });
});

describe('POST /admin/configurations/categories', () => {
  it('creates a category with the defaults for the omitted fields', async () => {
    const name = uniqueName('Fuel and costs');
    const res = await create({ scope: 'FORUM', name });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.result).toMatchObject({
      scope: 'FORUM',
      name,
      description: '',
      color: '#607D8B',
      icon: 'folder',
      isActive: true,
      usageCount: 0,
    });
    expect(await rowsNamed(name)).toHaveLength(1);
  });

  it('stores the given description, colour, icon and activity', async () => {
    const name = uniqueName('Tolls');
    const res = await create({ scope: 'ANNOUNCEMENT', name, description: 'Road tolls', color: '#FDD835', icon: 'fuel', isActive: false });
    expect(res.status).toBe(201);
    expect(res.body.result).toMatchObject({
      scope: 'ANNOUNCEMENT',
      description: 'Road tolls',
      color: '#FDD835',
      icon: 'fuel',
      isActive: false,
    });
  });

  it('accepts a name used in another scope', async () => {
    const res = await create({ scope: 'TUTORIAL', name: 'Routes and logistics' });
    expect(res.status).toBe(201);
    expect(res.body.result.scope).toBe('TUTORIAL');
  });
});

describe('GET /admin/configurations/categories/{id}', () => {
  it('returns a category with its usage count', async () => {
    const row = await seeded('ANNOUNCEMENT', 'Safety');
    const res = await t.call('getConfigCategoryById', { params: { id: row.id }, token: supervisor });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({
      id: row.id,
      scope: 'ANNOUNCEMENT',
      name: 'Safety',
      color: '#F44336',
      icon: 'warning',
      isActive: true,
      usageCount: 2,
    });
  });
});

describe('PATCH /admin/configurations/categories/{id}', () => {
  it('changes only the fields sent', async () => {
    const created = await create({ scope: 'FORUM', name: uniqueName('Editable'), description: 'Before', color: '#111111' });
    const id = created.body.result.id;
    const res = await t.call('updateConfigCategory', { params: { id }, body: { description: 'After', icon: 'map' }, token: supervisor });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result).toMatchObject({
      id,
      name: created.body.result.name,
      description: 'After',
      icon: 'map',
      color: '#111111',
      scope: 'FORUM',
    });
    expect(Date.parse(res.body.result.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.body.result.updatedAt));
    const row = await t.db.selectFrom('categories').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ description: 'After', icon: 'map', color: '#111111' });
  });

  it('renames to a name used in another scope (a change of case of its own name: config-lists)', async () => {
    const created = await create({ scope: 'TUTORIAL', name: uniqueName('rename me') });
    const id = created.body.result.id;
    const other = await t.call('updateConfigCategory', { params: { id }, body: { name: 'Company news' }, token: supervisor });

    expect(other.status).toBe(200);
    expect(other.body.result).toMatchObject({ name: 'Company news', scope: 'TUTORIAL' });
  });

  it('refuses scope and isActive as unknown fields with 400', async () => {
    const row = await seeded('FORUM', 'Regulations');
    for (const body of [{ scope: 'TUTORIAL' }, { isActive: false }]) {
      const res = await t.call('updateConfigCategory', { params: { id: row.id }, payload: body, token: supervisor });
      expect(res.status).toBe(400);
    }
    expect(await seeded('FORUM', 'Regulations')).toMatchObject({ scope: 'FORUM', is_active: true });
  });
});

describe('PATCH /admin/configurations/categories/{id}/status', () => {
  it('deactivates and reactivates a category, idempotently, keeping its usage', async () => {
    const row = await seeded('TUTORIAL', 'Transports');
    const off = await t.call('setConfigCategoryStatus', { params: { id: row.id }, body: { isActive: false }, token: supervisor });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body.result).toMatchObject({ id: row.id, isActive: false, usageCount: 2 });
    expect((await seeded('TUTORIAL', 'Transports')).is_active).toBe(false);
    const again = await t.call('setConfigCategoryStatus', { params: { id: row.id }, body: { isActive: false }, token: supervisor });
    expect(again.status).toBe(200);
    expect(again.body.result.isActive).toBe(false);
    const on = await t.call('setConfigCategoryStatus', { params: { id: row.id }, body: { isActive: true }, token: supervisor });
    expect(on.body.result.isActive).toBe(true);
    expect((await seeded('TUTORIAL', 'Transports')).is_active).toBe(true);
  });
});
