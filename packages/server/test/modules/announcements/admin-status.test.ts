import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { idsOf } from '../../support/fixtures.js';
import { expectError, expectInvalid, expectRoleRefused } from '../../support/expect.js';
import { categoryId, createAnnouncement, expireDirectly, seededId, uniqueTitle, userId } from './helpers.js';

const t = useTestApp();

const EXPIRED = 'Winter tyre campaign';
const DRAFT = 'Maintenance window for the platform';
const ARCHIVED = 'Old portal shutdown';

async function agentSees(id: number): Promise<boolean> {
  return (await t.call('getAnnouncementById', { token: await t.token('agent'), params: { id } })).status === 200;
}

describe('GET /admin/announcements', () => {
  it('lists every status, reporting a published announcement past its expiry as EXPIRED', async () => {
    const res = await t.call('listAdminAnnouncements', { token: await t.token('supervisor'), query: { limit: 50 } });
    expect(res.status).toBe(200);
    const byTitle = new Map(res.body.result.data.map((a: { title: string; status: string }) => [a.title, a.status]));
    expect(byTitle.get(DRAFT)).toBe('DRAFT');
    expect(byTitle.get(ARCHIVED)).toBe('ARCHIVED');
    expect(byTitle.get(EXPIRED)).toBe('EXPIRED');
    expect(byTitle.get('Port of Dakar: new customs pre-declaration')).toBe('PUBLISHED'); // any audience
    const first = res.body.result.data[0];
    expect(first).toHaveProperty('targeting');
    expect(first).toHaveProperty('statistics');
    const times = res.body.result.data.map((a: { createdAt: string }) => Date.parse(a.createdAt));
    expect(times).toEqual([...times].sort((a: number, b: number) => b - a));
  });

  it('filters by reported status: PUBLISHED leaves out the expired ones, EXPIRED lists only them', async () => {
    const token = await t.token('admin');
    const published = await t.call('listAdminAnnouncements', { token, query: { status: 'PUBLISHED', limit: 50 } });
    const titles = published.body.result.data.map((a: { title: string }) => a.title);
    expect(titles).not.toContain(EXPIRED);
    expect(published.body.result.data.every((a: { status: string }) => a.status === 'PUBLISHED')).toBe(true);
    const expired = await t.call('listAdminAnnouncements', { token, query: { status: 'EXPIRED' } });
    expect(expired.body.result.data.map((a: { title: string }) => a.title)).toContain(EXPIRED);
    expect(expired.body.result.data.every((a: { status: string }) => a.status === 'EXPIRED')).toBe(true);
  });

  it('filters by priority, category, author and search in the summary, and sorts by the requested field', async () => {
    const token = await t.token('admin');
    const word = `quokka${Date.now()}`;
    const created = await createAnnouncement(t, {
      summary: `About ${word}`,
      priority: 'LOW',
      categoryId: await categoryId(t, 'System updates'),
    });
    const found = await t.call('listAdminAnnouncements', {
      token,
      query: { search: word, priority: 'LOW', categoryId: await categoryId(t, 'System updates'), authorId: await userId(t, 'admin') },
    });
    expect(idsOf(found)).toEqual([created.id]);
    const supervisor = await userId(t, 'supervisor');
    const bySupervisor = await t.call('listAdminAnnouncements', { token, query: { authorId: supervisor, limit: 50 } });
    expect(bySupervisor.body.result.data.length).toBeGreaterThan(0);
    expect(bySupervisor.body.result.data.every((a: { author: { id: number } }) => a.author.id === supervisor)).toBe(true);
    const byTitle = await t.call('listAdminAnnouncements', { token, query: { sortBy: 'title', sortOrder: 'ASC', limit: 50 } });
    const titles = byTitle.body.result.data.map((a: { title: string }) => a.title.toLowerCase());
    expect(titles).toEqual([...titles].sort());
    const byPriority = await t.call('listAdminAnnouncements', { token, query: { sortBy: 'priority', limit: 50 } });
    const rank = { HIGH: 3, MEDIUM: 2, LOW: 1 } as Record<string, number>;
    const ranks = byPriority.body.result.data.map((a: { priority: string }) => rank[a.priority]);
    expect(ranks).toEqual([...ranks].sort((a, b) => b! - a!));
  });

  it('searches title, summary and content case-insensitively, each on its own, and follows edits', async () => {
    const token = await t.token('admin');
    const stamp = Date.now().toString(36);
    const created = await createAnnouncement(t, {
      title: `Wombat ${stamp} crossing`,
      summary: `Road closed near Kaolack ${stamp}`,
      content: `Détour via the 100%_ring ${stamp}.`,
    });
    const search = async (term: string) => idsOf(await t.call('listAdminAnnouncements', { token, query: { search: term, limit: 50 } }));
    expect(await search(`WOMBAT ${stamp}`)).toEqual([created.id]);
    expect(await search(`kaolack ${stamp}`)).toEqual([created.id]);
    expect(await search(`DÉTOUR`)).toContain(created.id);
    // Wildcards in the term are literal characters.
    expect(await search(`100%_ring ${stamp}`)).toEqual([created.id]);
    expect(await search(`100%xring ${stamp}`)).toEqual([]);
    // A term spanning the end of the title and the start of the summary matches neither field.
    expect(await search(`crossing road closed`)).not.toContain(created.id);
    // The stored search text follows an edit: the old word is gone, the new one found.
    const edited = await t.call('updateAnnouncement', { token, params: { id: created.id }, body: { title: `Emu ${stamp} crossing` } });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(await search(`wombat ${stamp}`)).toEqual([]);
    expect(await search(`emu ${stamp}`)).toEqual([created.id]);
    const row = await t.db.selectFrom('announcements').select('search_text').where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(row.search_text).toBe(`emu ${stamp} crossing road closed near kaolack ${stamp} détour via the 100%_ring ${stamp}.`);
  });

  it('answers 403 to agents and team managers and 400 for an unknown sortBy', async () => {
    expectRoleRefused(await t.call('listAdminAnnouncements', { token: await t.token('agent') }), 'listAdminAnnouncements');
    expectRoleRefused(await t.call('listAdminAnnouncements', { token: await t.token('manager') }), 'listAdminAnnouncements');
    expectInvalid(
      await t.call('listAdminAnnouncements', { token: await t.token('admin'), query: { sortBy: 'author' } }),
      /^querystring\/sortBy must be one of: /,
    );
  });
});

describe('GET /admin/announcements/{id}', () => {
  it('answers a draft with every field, and counts no view nor read', async () => {
    const id = await seededId(t, DRAFT);
    const res = await t.call('getAdminAnnouncementById', { token: await t.token('supervisor'), params: { id } });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({ id, title: DRAFT, status: 'DRAFT', publishedAt: null, content: expect.any(String) });
    const row = await t.db.selectFrom('announcements').select('views_count').where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.views_count).toBe(0);
    const reads = await t.db.selectFrom('announcement_reads').select('user_id').where('announcement_id', '=', id).execute();
    expect(reads).toHaveLength(0);
  });

  it('reports an expired announcement as EXPIRED', async () => {
    const res = await t.call('getAdminAnnouncementById', { token: await t.token('admin'), params: { id: await seededId(t, EXPIRED) } });
    expect(res.body.result.status).toBe('EXPIRED');
  });

  it('answers 404 for an unknown id and 403 to an agent', async () => {
    const missing = await t.call('getAdminAnnouncementById', { token: await t.token('admin'), params: { id: 999_999 } });
    expect(missing.status).toBe(404);
    expect(missing.body.errors).toEqual({ code: 'ANNOUNCEMENT_NOT_FOUND', announcementId: 999_999 });
    expect((await t.call('getAdminAnnouncementById', { token: await t.token('agent'), params: { id: 1 } })).status).toBe(403);
  });
});

describe('POST /admin/announcements/{id}/publish', () => {
  it('publishes a draft with publishedAt now; it becomes visible at once', async () => {
    const draft = await createAnnouncement(t, { status: 'DRAFT' });
    expect(await agentSees(draft.id)).toBe(false);
    const res = await t.call('publishAnnouncement', { token: await t.token('supervisor'), params: { id: draft.id } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result.status).toBe('PUBLISHED');
    expect(Date.now() - Date.parse(res.body.result.publishedAt!)).toBeLessThan(60_000);
    expect(await agentSees(draft.id)).toBe(true);
  });

  it('publishes an archived announcement again with a new publishedAt', async () => {
    const created = await createAnnouncement(t);
    const token = await t.token('admin');
    expect((await t.call('archiveAnnouncement', { token, params: { id: created.id } })).status).toBe(200);
    const res = await t.call('publishAnnouncement', { token, params: { id: created.id } });
    expect(res.status).toBe(200);
    expect(Date.parse(res.body.result.publishedAt!)).toBeGreaterThan(Date.parse(created.publishedAt!));
  });

  it('answers 409 INVALID_STATUS_TRANSITION for a published or an expired announcement', async () => {
    const token = await t.token('admin');
    const published = await createAnnouncement(t);
    const res = await t.call('publishAnnouncement', { token, params: { id: published.id } });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({
      code: 'INVALID_STATUS_TRANSITION',
      currentStatus: 'PUBLISHED',
      requested: 'PUBLISHED',
      allowed: ['ARCHIVED'],
    });
    const expired = await t.call('publishAnnouncement', { token, params: { id: await seededId(t, EXPIRED) } });
    expect(expired.status).toBe(409);
    expect(expired.body.errors).toMatchObject({ currentStatus: 'EXPIRED', allowed: ['ARCHIVED'] });
  });

  it('answers 410 ANNOUNCEMENT_EXPIRED for a draft whose expiry has passed', async () => {
    const draft = await createAnnouncement(t, { status: 'DRAFT' });
    const expiresAt = await expireDirectly(t, draft.id);
    const res = await t.call('publishAnnouncement', { token: await t.token('admin'), params: { id: draft.id } });
    expect(res.status).toBe(410);
    expect(res.body.errors).toEqual({ code: 'ANNOUNCEMENT_EXPIRED', announcementId: draft.id, expiresAt });
    const row = await t.db.selectFrom('announcements').select('status').where('id', '=', draft.id).executeTakeFirstOrThrow();
    expect(row.status).toBe('DRAFT');
  });

  it('lets exactly one of two parallel publications of a draft win', async () => {
    const draft = await createAnnouncement(t, { status: 'DRAFT' });
    const token = await t.token('admin');
    const results = await Promise.all([1, 2].map(() => t.call('publishAnnouncement', { token, params: { id: draft.id } })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
  });

  it('answers 404 for an unknown id and 403 to an agent', async () => {
    const unknown = await t.call('publishAnnouncement', { token: await t.token('admin'), params: { id: 999_999 } });
    expectError(unknown, 404, 'ANNOUNCEMENT_NOT_FOUND', { announcementId: 999_999 });

    const draft = await createAnnouncement(t, { status: 'DRAFT' });
    expectRoleRefused(
      await t.call('publishAnnouncement', { token: await t.token('agent'), params: { id: draft.id } }),
      'publishAnnouncement',
    );
    const read = await t.call('getAdminAnnouncementById', { token: await t.token('admin'), params: { id: draft.id } });
    expect(read.body.result.status).toBe('DRAFT');
  });
});

describe('POST /admin/announcements/{id}/archive', () => {
  it('archives a published announcement (hidden from users at once, likes kept), a draft and an expired one', async () => {
    const token = await t.token('supervisor');
    const published = await createAnnouncement(t);
    await t.call('likeAnnouncement', { token: await t.token('agent'), params: { id: published.id }, body: { action: 'LIKE' } });
    expect(await agentSees(published.id)).toBe(true);
    const res = await t.call('archiveAnnouncement', { token, params: { id: published.id } });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({ status: 'ARCHIVED', publishedAt: published.publishedAt, likesCount: 1 });
    expect(await agentSees(published.id)).toBe(false);
    const draft = await createAnnouncement(t, { status: 'DRAFT' });
    expect((await t.call('archiveAnnouncement', { token, params: { id: draft.id } })).body.result.status).toBe('ARCHIVED');
    const expiring = await createAnnouncement(t);
    await expireDirectly(t, expiring.id);
    const expired = await t.call('archiveAnnouncement', { token, params: { id: expiring.id } });
    expect(expired.body.result.status).toBe('ARCHIVED');
  });

  it('answers 409 INVALID_STATUS_TRANSITION for an archived announcement, 404 for an unknown one', async () => {
    const token = await t.token('admin');
    const res = await t.call('archiveAnnouncement', { token, params: { id: await seededId(t, ARCHIVED) } });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({
      code: 'INVALID_STATUS_TRANSITION',
      currentStatus: 'ARCHIVED',
      requested: 'ARCHIVED',
      allowed: ['PUBLISHED'],
    });
    expect((await t.call('archiveAnnouncement', { token, params: { id: 999_999 } })).status).toBe(404);
    expect((await t.call('archiveAnnouncement', { token: await t.token('manager'), params: { id: 1 } })).status).toBe(403);
  });
});

describe('POST /admin/announcements/bulk-action', () => {
  it('applies the action to each id on its own and reports the processed and the failed ones', async () => {
    const token = await t.token('admin');
    const draft = await createAnnouncement(t, { status: 'DRAFT', title: uniqueTitle('Bulk draft') });
    const published = await createAnnouncement(t);
    const res = await t.call('bulkActionAnnouncements', { token, body: { action: 'PUBLISH', ids: [draft.id, published.id, 999_999] } });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({
      action: 'PUBLISH',
      processed: [draft.id],
      failed: [
        { id: published.id, code: 'INVALID_STATUS_TRANSITION', message: `Announcement ${published.id} is already PUBLISHED` },
        { id: 999_999, code: 'ANNOUNCEMENT_NOT_FOUND', message: 'Announcement 999999 not found' },
      ],
    });
    expect(await agentSees(draft.id)).toBe(true);
    const archived = await t.call('bulkActionAnnouncements', { token, body: { action: 'ARCHIVE', ids: [draft.id, published.id] } });
    expect(archived.body.result).toMatchObject({ processed: [draft.id, published.id], failed: [] });
    const again = await t.call('bulkActionAnnouncements', { token, body: { action: 'ARCHIVE', ids: [draft.id] } });
    expect(again.body.result.failed).toEqual([{ id: draft.id, code: 'INVALID_STATUS_TRANSITION', message: expect.any(String) }]);
    const deleted = await t.call('bulkActionAnnouncements', { token, body: { action: 'DELETE', ids: [draft.id, published.id, 999_998] } });
    expect(deleted.body.result).toMatchObject({
      processed: [draft.id, published.id],
      failed: [{ id: 999_998, code: 'ANNOUNCEMENT_NOT_FOUND' }],
    });
    expect(await t.db.selectFrom('announcements').select('id').where('id', 'in', [draft.id, published.id]).execute()).toHaveLength(0);
  });

  it('reports ANNOUNCEMENT_EXPIRED for a draft past its expiry', async () => {
    const draft = await createAnnouncement(t, { status: 'DRAFT' });
    await expireDirectly(t, draft.id);
    const res = await t.call('bulkActionAnnouncements', { token: await t.token('admin'), body: { action: 'PUBLISH', ids: [draft.id] } });
    expect(res.body.result.failed).toEqual([{ id: draft.id, code: 'ANNOUNCEMENT_EXPIRED', message: expect.any(String) }]);
  });

  it('answers 400 for duplicate ids or an unknown action, and 403 to a supervisor', async () => {
    const token = await t.token('admin');
    expectInvalid(
      await t.call('bulkActionAnnouncements', { token, body: { action: 'PUBLISH', ids: [1, 1] } }),
      /^body\/ids must NOT have duplicate items/,
    );
    expectInvalid(
      await t.call('bulkActionAnnouncements', { token, payload: { action: 'HIDE', ids: [1] } }),
      /^body\/action must be one of: /,
    );
    expectInvalid(
      await t.call('bulkActionAnnouncements', { token, body: { action: 'PUBLISH', ids: [] } }),
      'body/ids must NOT have fewer than 1 items',
    );
    const supervisor = await t.call('bulkActionAnnouncements', {
      token: await t.token('supervisor'),
      body: { action: 'DELETE', ids: [1] },
    });
    expectRoleRefused(supervisor, 'bulkActionAnnouncements');
    const kept = await t.call('getAdminAnnouncementById', { token, params: { id: 1 } });
    expect(kept.body.result.id).toBe(1);
  });
});
