import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { idsOf, rowsNamed as rowsNamedIn, uniqueName as uniqueText } from '../../support/fixtures.js';

const t = useTestApp();
let supervisor: string;
beforeAll(async () => {
  supervisor = await t.token('supervisor');
});

const uniqueName = (prefix: string) => uniqueText(prefix, '-');
const create = (body: object, token = supervisor) => t.call('createConfigTag', { payload: body, token });
const rowsNamed = (name: string) => rowsNamedIn(t, 'tags', name);

const seeded = (name: string) => t.db.selectFrom('tags').selectAll().where('name', '=', name).executeTakeFirstOrThrow();

describe('GET /admin/configurations/tags', () => {
  it('pages through the tags with their usage by topics, announcements and tutorials', async () => {
    const res = await t.call('listConfigTags', { query: { limit: 100 }, token: supervisor });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const data = res.body.result.data as { name: string; usageCount: number; color: string }[];
    // safety: one forum topic, two announcements, one tutorial.
    expect(data.find((g) => g.name === 'safety')).toMatchObject({ usageCount: 4, color: '#FF5722', isActive: true });
    // training: three tutorials only.
    expect(data.find((g) => g.name === 'training')?.usageCount).toBe(3);
    expect(res.body.result.meta).toMatchObject({ current_page: 1, limit: 100, total: data.length });
  });

  it('filters by text in the name, case-insensitively (the activity filter: config-lists)', async () => {
    const byName = await t.call('listConfigTags', { query: { search: 'ROUTE' }, token: supervisor });
    expect(byName.body.result.data.map((g: { name: string }) => g.name)).toEqual(['route-planning']);
  });

  it('treats % and _ in the search text literally', async () => {
    const res = await t.call('listConfigTags', { query: { search: '_' }, token: supervisor });
    expect(res.status).toBe(200);
    expect(res.body.result.data.every((g: { name: string }) => g.name.includes('_'))).toBe(true);
  });

  it('sorts by usageCount, name or creation time and pages', async () => {
    const byUsage = await t.call('listConfigTags', { query: { sortBy: 'usageCount', limit: 100 }, token: supervisor });
    const usage = byUsage.body.result.data.map((g: { usageCount: number }) => g.usageCount);
    expect(usage).toEqual([...usage].sort((a, b) => b - a));
    expect(usage[0]).toBe(4);

    const byName = await t.call('listConfigTags', { query: { sortBy: 'name', sortOrder: 'ASC', limit: 100 }, token: supervisor });
    const seededNames = [
      'customs',
      'fuel',
      'maintenance',
      'platform',
      'regulation',
      'route-planning',
      'safety',
      'tips',
      'training',
      'urgent',
    ];
    const names = byName.body.result.data.map((g: { name: string }) => g.name);
    expect(names.filter((n: string) => seededNames.includes(n))).toEqual(seededNames);

    const newest = await create({ name: uniqueName('newest') });
    const byDate = await t.call('listConfigTags', { query: { limit: 1 }, token: supervisor });
    expect(byDate.body.result.data[0]!.id).toBe(newest.body.result.id);

    const page2 = await t.call('listConfigTags', { query: { limit: 3, page: 2, sortBy: 'name', sortOrder: 'ASC' }, token: supervisor });
    const all = await t.call('listConfigTags', { query: { limit: 100, sortBy: 'name', sortOrder: 'ASC' }, token: supervisor });
    expect(idsOf(page2)).toEqual(idsOf(all).slice(3, 6));
    expect(page2.body.result.meta).toMatchObject({ current_page: 2, limit: 3 });
  });
});

describe('POST /admin/configurations/tags', () => {
  it('creates a tag with the defaults for the omitted fields', async () => {
    const name = uniqueName('cold-chain');
    const res = await create({ name });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.result).toMatchObject({ name, color: '#607D8B', isActive: true, usageCount: 0 });
    expect(await rowsNamed(name)).toHaveLength(1);
  });

  it('stores the given colour and activity', async () => {
    const res = await create({ name: uniqueName('night'), color: '#3949AB', isActive: false });
    expect(res.status).toBe(201);
    expect(res.body.result).toMatchObject({ color: '#3949AB', isActive: false });
  });
});

describe('GET /admin/configurations/tags/{id}', () => {
  it('returns a tag with its usage count', async () => {
    const row = await seeded('platform');
    const res = await t.call('getConfigTagById', { params: { id: row.id }, token: supervisor });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({ id: row.id, name: 'platform', color: '#4CAF50', isActive: true, usageCount: 4 });
  });
});

describe('PATCH /admin/configurations/tags/{id}', () => {
  it('changes only the fields sent', async () => {
    const created = await create({ name: uniqueName('editable'), color: '#111111' });
    const id = created.body.result.id;
    const res = await t.call('updateConfigTag', { params: { id }, body: { color: '#2E7D32' }, token: supervisor });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result).toMatchObject({ id, name: created.body.result.name, color: '#2E7D32' });
    const renamed = await t.call('updateConfigTag', { params: { id }, body: { name: `${created.body.result.name}-x` }, token: supervisor });
    expect(renamed.body.result).toMatchObject({ name: `${created.body.result.name}-x`, color: '#2E7D32' });
    const row = await t.db.selectFrom('tags').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ name: `${created.body.result.name}-x`, color: '#2E7D32' });
  });

  it('refuses isActive as an unknown field with 400', async () => {
    const row = await seeded('tips');
    const res = await t.call('updateConfigTag', { params: { id: row.id }, payload: { isActive: false }, token: supervisor });
    expect(res.status).toBe(400);
    expect((await seeded('tips')).is_active).toBe(true);
  });
});

describe('DELETE /admin/configurations/tags/{id}', () => {
  it('counts a tag carried by a single tutorial as in use', async () => {
    const created = await create({ name: uniqueName('tutorial-only') });
    const id = created.body.result.id;
    const tutorial = await t.db.selectFrom('tutorials').select('id').limit(1).executeTakeFirstOrThrow();
    await t.db.insertInto('tutorial_tags').values({ tutorial_id: tutorial.id, tag_id: id }).execute();
    const res = await t.call('deleteConfigTag', { params: { id }, token: await t.token('admin') });
    expect(res.status).toBe(409);
    expect(res.body.errors.usageCount).toBe(1);
  });
});

describe('PATCH /admin/configurations/tags/{id}/status', () => {
  it('deactivates and reactivates a tag, idempotently, keeping its usage', async () => {
    const row = await seeded('customs');
    const off = await t.call('setConfigTagStatus', { params: { id: row.id }, body: { isActive: false }, token: supervisor });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    // customs: one announcement, two tutorials.
    expect(off.body.result).toMatchObject({ id: row.id, isActive: false, usageCount: 3 });
    expect((await seeded('customs')).is_active).toBe(false);
    const again = await t.call('setConfigTagStatus', { params: { id: row.id }, body: { isActive: false }, token: supervisor });
    expect(again.status).toBe(200);
    expect(again.body.result.isActive).toBe(false);
    const on = await t.call('setConfigTagStatus', { params: { id: row.id }, body: { isActive: true }, token: supervisor });
    expect(on.body.result.isActive).toBe(true);
    expect((await seeded('customs')).is_active).toBe(true);
  });
});
