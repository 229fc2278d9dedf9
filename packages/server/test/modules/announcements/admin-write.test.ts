import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { expectRoleRefused } from '../../support/expect.js';
import { categoryId, createAnnouncement, tagId, uniqueTitle, userId } from './helpers.js';

const t = useTestApp();

const future = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

async function visibleTo(user: 'agent' | 'manager', title: string): Promise<boolean> {
  const res = await t.call('listAnnouncements', { token: await t.token(user), query: { search: title } });
  return res.body.result.data.some((a: { title: string }) => a.title === title);
}

describe('POST /admin/announcements', () => {
  it('creates a draft written by the caller with the given fields and the defaults', async () => {
    const title = uniqueTitle('Strike at the port');
    const tags = [await tagId(t, 'urgent'), await tagId(t, 'customs')];
    const expiresAt = future(10);
    const res = await t.call('createAnnouncement', {
      token: await t.token('supervisor'),
      body: {
        title,
        summary: 'Expect long waits.',
        content: 'Dock workers strike on **2 and 3 December**.',
        categoryId: await categoryId(t, 'Safety'),
        tagIds: tags,
        targeting: { isGlobal: false, userTypes: ['AGENT', 'TEAM_MANAGER'], regions: ['FR'] },
        attachments: [
          { filename: 'a.pdf', type: 'application/pdf', size: 10, url: 'https://cdn.example/a.pdf', description: 'First' },
          { filename: 'b.png', type: 'image/png', size: 20, url: 'https://cdn.example/b.png' },
        ],
        expiresAt,
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.result).toMatchObject({
      title,
      summary: 'Expect long waits.',
      status: 'DRAFT',
      priority: 'MEDIUM',
      category: { name: 'Safety', color: '#F44336', icon: 'warning', description: 'Safety alerts and road conditions.' },
      featuredImage: null,
      attachments: [
        { id: 1, filename: 'a.pdf', description: 'First' },
        { id: 2, filename: 'b.png', description: null },
      ],
      tags: [
        { id: tags[1], name: 'customs' },
        { id: tags[0], name: 'urgent' },
      ],
      author: { id: await userId(t, 'supervisor'), firstName: 'Moussa', lastName: 'Diop', role: 'Supervisor', avatar: null },
      targeting: { isGlobal: false, userTypes: ['AGENT', 'TEAM_MANAGER'], regions: ['FR'] },
      statistics: { viewsCount: 0, likesCount: 0 },
      publishedAt: null,
      expiresAt,
    });
    expect(await visibleTo('agent', title)).toBe(false); // a draft
  });

  it('creates a published announcement, visible to its audience at once, global by default', async () => {
    const before = Date.now();
    const created = await createAnnouncement(t, { title: uniqueTitle('Published now') });
    expect(created.status).toBe('PUBLISHED');
    expect(Date.parse(created.publishedAt!)).toBeGreaterThanOrEqual(before - 1000);
    expect(created.targeting).toEqual({ isGlobal: true, userTypes: [], regions: [] });
    expect(await visibleTo('agent', created.title)).toBe(true);
  });

  it('answers 400 for a past expiry, an empty non-global audience and unknown role or country codes', async () => {
    const token = await t.token('admin');
    const base = { title: 'Rules check', content: 'x', categoryId: await categoryId(t, 'Safety') };
    const past = await t.call('createAnnouncement', { token, body: { ...base, expiresAt: '2020-01-01T00:00:00Z' } });
    expect(past.status).toBe(400);
    expect(past.body.errors).toEqual(['body/expiresAt must be in the future']);
    const nobody = await t.call('createAnnouncement', { token, body: { ...base, targeting: { isGlobal: false } } });
    expect(nobody.status).toBe(400);
    const unknown = await t.call('createAnnouncement', {
      token,
      body: { ...base, targeting: { isGlobal: false, userTypes: ['PILOT'], regions: ['ZZ', 'FR'] } },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([
      'body/targeting.userTypes has unknown role codes: PILOT',
      'body/targeting.regions has unknown country codes: ZZ',
    ]);
    const extra = await t.call('createAnnouncement', { token, payload: { ...base, color: 'red' } });
    expect(extra.status).toBe(400);
    expect(await t.db.selectFrom('announcements').select('id').where('title', '=', 'Rules check').execute()).toHaveLength(0);
  });

  it('answers 404 CATEGORY_NOT_FOUND for an unknown, inactive or forum category and TAG_NOT_FOUND for unknown or inactive tags', async () => {
    const token = await t.token('admin');
    const base = { title: 'References check', content: 'x' };
    const inactive = await t.db
      .insertInto('categories')
      .values({ scope: 'ANNOUNCEMENT', name: 'Inactive news', is_active: false })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const id of [99_999, inactive.id, await categoryId(t, 'General discussion', 'FORUM')]) {
      const res = await t.call('createAnnouncement', { token, body: { ...base, categoryId: id } });
      expect(res.status).toBe(404);
      expect(res.body.errors).toEqual({ code: 'CATEGORY_NOT_FOUND', categoryId: id });
    }
    const retired = await t.db
      .insertInto('tags')
      .values({ name: 'retired-tag', is_active: false })
      .returning('id')
      .executeTakeFirstOrThrow();
    const res = await t.call('createAnnouncement', {
      token,
      body: { ...base, categoryId: await categoryId(t, 'Safety'), tagIds: [await tagId(t, 'safety'), retired.id, 99_999] },
    });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual({ code: 'TAG_NOT_FOUND', tagIds: [retired.id, 99_999] });
  });

  it('answers 403 FORBIDDEN to agents and team managers', async () => {
    for (const user of ['agent', 'manager'] as const) {
      const res = await t.call('createAnnouncement', {
        token: await t.token(user),
        body: { title: 'Not allowed', content: 'x', categoryId: await categoryId(t, 'Safety') },
      });
      expect(res.status).toBe(403);
      expect(res.body.errors.code).toBe('FORBIDDEN');
    }
  });
});

describe('PATCH /admin/announcements/{id}', () => {
  it('changes the given fields, replaces tags, attachments and targeting, and keeps publishedAt', async () => {
    const created = await createAnnouncement(t, {
      tagIds: [await tagId(t, 'urgent')],
      attachments: [{ filename: 'old.pdf', type: 'application/pdf', size: 1, url: 'https://cdn.example/old.pdf' }],
      featuredImage: { url: 'https://cdn.example/i.png' },
      expiresAt: future(5),
    });
    const title = uniqueTitle('Edited');
    const res = await t.call('updateAnnouncement', {
      token: await t.token('supervisor'),
      params: { id: created.id },
      body: {
        title,
        priority: 'HIGH',
        summary: null,
        tagIds: [await tagId(t, 'fuel')],
        attachments: [
          { filename: 'new1.pdf', type: 'application/pdf', size: 2, url: 'https://cdn.example/new1.pdf' },
          { filename: 'new2.pdf', type: 'application/pdf', size: 3, url: 'https://cdn.example/new2.pdf' },
        ],
        featuredImage: null,
        targeting: { isGlobal: false, userTypes: ['TEAM_MANAGER'] },
        expiresAt: null,
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result).toMatchObject({
      id: created.id,
      title,
      priority: 'HIGH',
      summary: null,
      status: 'PUBLISHED',
      publishedAt: created.publishedAt,
      featuredImage: null,
      tags: [{ name: 'fuel' }],
      attachments: [
        { id: 1, filename: 'new1.pdf' },
        { id: 2, filename: 'new2.pdf' },
      ],
      targeting: { isGlobal: false, userTypes: ['TEAM_MANAGER'], regions: [] },
      expiresAt: null,
      content: 'Body of the test announcement.',
    });
    expect(Date.parse(res.body.result.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.updatedAt as string));
    // Visible to its new audience at once.
    expect(await visibleTo('manager', title)).toBe(true);
    expect(await visibleTo('agent', title)).toBe(false);
  });

  it('answers 404 for an unknown announcement, category or tag, and 400 for a rule break or an empty body', async () => {
    const token = await t.token('admin');
    const created = await createAnnouncement(t);
    const missing = await t.call('updateAnnouncement', { token, params: { id: 999_999 }, body: { title: 'Whatever' } });
    expect(missing.status).toBe(404);
    expect(missing.body.errors).toEqual({ code: 'ANNOUNCEMENT_NOT_FOUND', announcementId: 999_999 });
    const category = await t.call('updateAnnouncement', { token, params: { id: created.id }, body: { categoryId: 99_999 } });
    expect(category.body.errors).toEqual({ code: 'CATEGORY_NOT_FOUND', categoryId: 99_999 });
    const tag = await t.call('updateAnnouncement', { token, params: { id: created.id }, body: { tagIds: [99_998] } });
    expect(tag.body.errors).toEqual({ code: 'TAG_NOT_FOUND', tagIds: [99_998] });
    expect((await t.call('updateAnnouncement', { token, params: { id: created.id }, body: {} })).status).toBe(400);
    const past = await t.call('updateAnnouncement', { token, params: { id: created.id }, body: { expiresAt: '2020-01-01T00:00:00Z' } });
    expect(past.status).toBe(400);
    const nobody = await t.call('updateAnnouncement', {
      token,
      params: { id: created.id },
      body: { targeting: { isGlobal: false, regions: [] } },
    });
    expect(nobody.status).toBe(400);
    const status = await t.call('updateAnnouncement', { token, params: { id: created.id }, payload: { status: 'ARCHIVED' } });
    expect(status.status).toBe(400); // the status moves only through publish and archive
  });

  it('answers 403 to a team manager', async () => {
    const created = await createAnnouncement(t);
    const res = await t.call('updateAnnouncement', {
      token: await t.token('manager'),
      params: { id: created.id },
      body: { title: 'No way' },
    });
    expectRoleRefused(res, 'updateAnnouncement');
    const read = await t.call('getAdminAnnouncementById', { token: await t.token('admin'), params: { id: created.id } });
    expect(read.body.result.title).toBe(created.title);
  });
});

describe('DELETE /admin/announcements/{id}', () => {
  it('deletes the announcement with its read marks, likes and tag links', async () => {
    const created = await createAnnouncement(t, { tagIds: [await tagId(t, 'tips')] });
    const agent = await t.token('agent');
    await t.call('getAnnouncementById', { token: agent, params: { id: created.id } });
    await t.call('likeAnnouncement', { token: agent, params: { id: created.id }, body: { action: 'LIKE' } });
    const res = await t.call('deleteAnnouncement', { token: await t.token('admin'), params: { id: created.id } });
    expect(res.status).toBe(200);
    expect(res.body.result).toBeNull();
    for (const table of ['announcement_reads', 'announcement_likes', 'announcement_tags'] as const) {
      expect(await t.db.selectFrom(table).select('announcement_id').where('announcement_id', '=', created.id).execute()).toHaveLength(0);
    }
    expect((await t.call('getAnnouncementById', { token: agent, params: { id: created.id } })).status).toBe(404);
    expect(await visibleTo('agent', created.title)).toBe(false);
  });

  it('answers 404 for an unknown id and 403 to a supervisor', async () => {
    const created = await createAnnouncement(t);
    const missing = await t.call('deleteAnnouncement', { token: await t.token('admin'), params: { id: 999_999 } });
    expect(missing.status).toBe(404);
    expect(missing.body.errors).toEqual({ code: 'ANNOUNCEMENT_NOT_FOUND', announcementId: 999_999 });
    const supervisor = await t.call('deleteAnnouncement', { token: await t.token('supervisor'), params: { id: created.id } });
    expect(supervisor.status).toBe(403);
    expect(await t.db.selectFrom('announcements').select('id').where('id', '=', created.id).execute()).toHaveLength(1);
  });
});
