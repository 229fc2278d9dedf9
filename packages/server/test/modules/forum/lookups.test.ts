import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { expectInvalid } from '../../support/expect.js';
import { newMessage, newTopic, setMessage, setTopic } from './helpers.js';

const t = useTestApp();
let agent: string;

beforeAll(async () => {
  agent = await t.token('agent');
});

const newCategory = (name: string, values: { scope?: 'FORUM' | 'ANNOUNCEMENT'; is_active?: boolean } = {}) =>
  t.db
    .insertInto('categories')
    .values({
      scope: values.scope ?? 'FORUM',
      name,
      description: `${name} description`,
      color: '#123456',
      icon: 'truck',
      is_active: values.is_active ?? true,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
    .then((r) => r.id);

describe('GET /trade/forum/categories and /trade/forum/categories/{id}', () => {
  it('counts the visible topics of a category and their visible messages', async () => {
    const categoryId = await newCategory('Counting category');
    const a = await newTopic(t, agent, { categoryId });
    await newMessage(t, agent, a.id);
    const hiddenMessage = await newMessage(t, agent, a.id);
    await setMessage(t, hiddenMessage.id, { is_hidden: true });
    const deleted = await newMessage(t, agent, a.id);
    await t.call('deleteForumMessage', { token: agent, params: { id: deleted.id } });
    const b = await newTopic(t, agent, { categoryId });
    const hiddenTopic = await newTopic(t, agent, { categoryId });
    await newMessage(t, agent, hiddenTopic.id);
    await setTopic(t, hiddenTopic.id, { is_hidden: true });
    await setTopic(t, b.id, { status: 'CLOSED' });

    const res = await t.call('getForumCategoryById', { token: agent, params: { id: categoryId } });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({
      id: categoryId,
      name: 'Counting category',
      description: 'Counting category description',
      color: '#123456',
      icon: 'truck',
      topicsCount: 2, // a and the closed b; the hidden topic is left out
      messagesCount: 3, // a's main message and reply, b's main message
      isActive: true,
    });
    const list = await t.call('listForumCategories', { token: agent });
    expect(list.body.result.find((c: { id: number }) => c.id === categoryId)).toEqual(res.body.result);
  });

  it('lists only active FORUM categories, sorted by name, with the seeded counters', async () => {
    const inactive = await newCategory('Zz inactive forum category', { is_active: false });
    const res = await t.call('listForumCategories', { token: agent });
    expect(res.status).toBe(200);
    const names = res.body.result.map((c: { name: string }) => c.name);
    expect(names).toEqual([...names].sort((x: string, y: string) => x.localeCompare(y)));
    expect(names).toEqual(
      expect.arrayContaining(['General discussion', 'Regulations', 'Routes and logistics', 'Vehicles and maintenance']),
    );
    expect(names).not.toContain('Company news');
    expect(res.body.result.map((c: { id: number }) => c.id)).not.toContain(inactive);
    const routes = res.body.result.find((c: { name: string }) => c.name === 'Routes and logistics');
    expect(routes).toMatchObject({ topicsCount: 1, messagesCount: 5, isActive: true });
  });

  it('answers 404 CATEGORY_NOT_FOUND for an unknown, inactive or non-forum category', async () => {
    const inactive = await newCategory('Inactive forum category', { is_active: false });
    const other = await newCategory('Announcement only', { scope: 'ANNOUNCEMENT' });
    for (const id of [inactive, other, 999_999]) {
      const res = await t.call('getForumCategoryById', { token: agent, params: { id } });
      expect(res.status).toBe(404);
      expect(res.body.errors).toEqual({ code: 'CATEGORY_NOT_FOUND', categoryId: id });
    }
  });
});

describe('GET /trade/forum/tags', () => {
  it('lists active tags, most used on visible topics first, then by name', async () => {
    const tags = await t.db
      .insertInto('tags')
      .values([
        { name: 'lookup-popular', color: '#111111' },
        { name: 'lookup-rare', color: '#222222' },
        { name: 'lookup-unused', color: null },
        { name: 'lookup-retired', is_active: false },
      ])
      .returning(['id', 'name'])
      .execute();
    const id = (name: string) => tags.find((tag) => tag.name === name)!.id;
    await newTopic(t, agent, { tagIds: [id('lookup-popular'), id('lookup-rare')] });
    await newTopic(t, agent, { tagIds: [id('lookup-popular')] });
    const hidden = await newTopic(t, agent, { tagIds: [id('lookup-rare')] });
    await setTopic(t, hidden.id, { is_hidden: true });

    const res = await t.call('listForumTags', { token: agent, query: { search: 'LOOKUP-' } });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual([
      { id: id('lookup-popular'), name: 'lookup-popular', color: '#111111', usageCount: 2, isActive: true },
      { id: id('lookup-rare'), name: 'lookup-rare', color: '#222222', usageCount: 1, isActive: true },
      { id: id('lookup-unused'), name: 'lookup-unused', color: '#607D8B', usageCount: 0, isActive: true },
    ]);

    // The counts follow a topic shown again, a tag added, a topic deleted.
    await setTopic(t, hidden.id, { is_hidden: false });
    const unused = await newTopic(t, agent, { tagIds: [id('lookup-unused'), id('lookup-rare')] });
    const counts = async () =>
      Object.fromEntries(
        (await t.call('listForumTags', { token: agent, query: { search: 'LOOKUP-' } })).body.result.map(
          (g: { name: string; usageCount: number }) => [g.name, g.usageCount],
        ),
      );
    expect(await counts()).toEqual({ 'lookup-rare': 3, 'lookup-popular': 2, 'lookup-unused': 1 });
    const removed = await t.call('deleteForumTopic', { token: agent, params: { id: unused.id } });
    expect(removed.status).toBe(200);
    expect(await counts()).toEqual({ 'lookup-popular': 2, 'lookup-rare': 2, 'lookup-unused': 0 });
  });

  it('returns at most 20 tags by default and honours limit', async () => {
    await t.db
      .insertInto('tags')
      .values(Array.from({ length: 25 }, (_, i) => ({ name: `bulk-tag-${String(i).padStart(2, '0')}` })))
      .execute();
    const all = await t.call('listForumTags', { token: agent });
    expect(all.status).toBe(200);
    expect(all.body.result).toHaveLength(20);
    const three = await t.call('listForumTags', { token: agent, query: { search: 'bulk-tag', limit: 3 } });
    expect(three.body.result.map((tag: { name: string }) => tag.name)).toEqual(['bulk-tag-00', 'bulk-tag-01', 'bulk-tag-02']);
    const literal = await t.call('listForumTags', { token: agent, query: { search: 'bulk_tag' } });
    expect(literal.body.result).toEqual([]);
  });

  it('refuses a limit above 100 with 400', async () => {
    const res = await t.call('listForumTags', { token: agent, query: { limit: 101 } });
    expectInvalid(res, 'querystring/limit must be <= 100');
  });
});
