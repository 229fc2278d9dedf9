import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { idsOf } from '../../support/fixtures.js';
import { expectInvalid, expectUnauthenticated } from '../../support/expect.js';
import { atInstant, categoryId, createAnnouncement, expireDirectly, seededId, uniqueTitle, userId } from './helpers.js';

const t = useTestApp();

const WELCOME = 'Welcome to the new Transport Operations platform';
const SUPERVISORS_ONLY = 'Supervisors: quarterly validation targets';
const DAKAR = 'Port of Dakar: new customs pre-declaration';
const EXPIRED = 'Winter tyre campaign';
const DRAFT = 'Maintenance window for the platform';
const ARCHIVED = 'Old portal shutdown';

async function listTitles(user: 'agent' | 'agent2' | 'manager' | 'supervisor' | 'admin', query: Record<string, string | number> = {}) {
  const res = await t.call('listAnnouncements', { token: await t.token(user), query: { limit: 50, ...query } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.result.data.map((a: { title: string }) => a.title) as string[];
}

describe('GET /trade/announcements', () => {
  it('lists only published, unexpired announcements targeted at the caller', async () => {
    const titles = await listTitles('agent');
    expect(titles).toContain(WELCOME);
    expect(titles).not.toContain(SUPERVISORS_ONLY); // user type SUPERVISOR only
    expect(titles).not.toContain(DAKAR); // region SN, the agent is in FR
    expect(titles).not.toContain(EXPIRED);
    expect(titles).not.toContain(DRAFT);
    expect(titles).not.toContain(ARCHIVED);
    expect(await listTitles('supervisor')).toContain(SUPERVISORS_ONLY);
  });

  it('shows an announcement targeted at the caller by country code or role code, not one for another audience', async () => {
    const byRegion = await createAnnouncement(t, { title: uniqueTitle('France only'), targeting: { isGlobal: false, regions: ['FR'] } });
    const byRole = await createAnnouncement(t, {
      title: uniqueTitle('Managers only'),
      targeting: { isGlobal: false, userTypes: ['TEAM_MANAGER'] },
    });
    const elsewhere = await createAnnouncement(t, { title: uniqueTitle('Morocco only'), targeting: { isGlobal: false, regions: ['MA'] } });
    const agent = await listTitles('agent');
    expect(agent).toContain(byRegion.title);
    expect(agent).not.toContain(byRole.title);
    expect(agent).not.toContain(elsewhere.title);
    const manager = await listTitles('manager');
    expect(manager).toContain(byRole.title);
    expect(manager).not.toContain(elsewhere.title);
  });

  it('orders by publication time, newest first, and carries the caller’s own read and like state', async () => {
    const res = await t.call('listAnnouncements', { token: await t.token('agent'), query: { limit: 50 } });
    const data = res.body.result.data as { title: string; publishedAt: string; isRead: boolean; userLiked: boolean; status: string }[];
    const times = data.map((a) => Date.parse(a.publishedAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(data.every((a) => a.status === 'PUBLISHED')).toBe(true);
    const welcome = data.find((a) => a.title === WELCOME)!;
    expect(welcome).toMatchObject({ isRead: true, userLiked: true }); // seed: the agent read and liked it
    const forAgent2 = (await t.call('listAnnouncements', { token: await t.token('agent2'), query: { limit: 50 } })).body.result.data;
    expect(forAgent2.find((a: { title: string }) => a.title === WELCOME)).toMatchObject({ isRead: true, userLiked: false });
  });

  it('filters by priority, category, search in title and content, and publication dates', async () => {
    const token = await t.token('agent');
    const safety = await categoryId(t, 'Safety');
    const word = `zebra${Date.now()}`;
    const target = await createAnnouncement(t, { priority: 'LOW', categoryId: safety, content: `Contains ${word} in the body.` });
    const byContent = await t.call('listAnnouncements', { token, query: { search: word.toUpperCase() } });
    expect(idsOf(byContent)).toEqual([target.id]);
    const byTitle = await t.call('listAnnouncements', { token, query: { search: target.title } });
    expect(idsOf(byTitle)).toEqual([target.id]);
    const low = await t.call('listAnnouncements', { token, query: { priority: 'LOW', limit: 50 } });
    expect(low.body.result.data.length).toBeGreaterThan(0);
    expect(low.body.result.data.every((a: { priority: string }) => a.priority === 'LOW')).toBe(true);
    const inSafety = await t.call('listAnnouncements', { token, query: { categoryId: safety, limit: 50 } });
    expect(inSafety.body.result.data.every((a: { category: { id: number } }) => a.category.id === safety)).toBe(true);
    expect(idsOf(inSafety)).toContain(target.id);
    const recent = await t.call('listAnnouncements', {
      token,
      query: {
        startDate: new Date(Date.now() - 3 * 86_400_000).toISOString(),
        endDate: new Date(Date.now() + 60_000).toISOString(),
        limit: 50,
      },
    });
    const recentTitles = recent.body.result.data.map((a: { title: string }) => a.title);
    expect(recentTitles).toContain('A7 motorway closed near Valence: reroute shipments'); // published 2 days ago
    expect(recentTitles).not.toContain(WELCOME); // published 14 days ago
  });

  it('pages the list with its meta', async () => {
    const all = await t.call('listAnnouncements', { token: await t.token('agent'), query: { limit: 50 } });
    const total = all.body.result.meta.total as number;
    const page2 = await t.call('listAnnouncements', { token: await t.token('agent'), query: { page: 2, limit: 2 } });
    expect(page2.body.result.meta).toEqual({ total, current_page: 2, total_pages: Math.ceil(total / 2), limit: 2, total_is_exact: true });
    expect(idsOf(page2)).toEqual(all.body.result.data.slice(2, 4).map((a: { id: number }) => a.id));
  });

  it('answers 400 for status DRAFT, limit above 50 and an end date before the start date', async () => {
    const token = await t.token('agent');
    expect((await t.call('listAnnouncements', { token, query: { status: 'DRAFT' } })).status).toBe(400);
    expect((await t.call('listAnnouncements', { token, query: { limit: 51 } })).status).toBe(400);
    const reversed = await t.call('listAnnouncements', {
      token,
      query: { startDate: '2026-02-01T00:00:00Z', endDate: '2026-01-01T00:00:00Z' },
    });
    expect(reversed.status).toBe(400);
    expect(reversed.body.errors).toEqual(['querystring/endDate must not be before startDate']);
  });

  it('answers 401 without a token', async () => {
    expectUnauthenticated(await t.call('listAnnouncements'));
  });
});

describe('GET /trade/announcements/{id}', () => {
  it('answers every field, counts a view once per user per day and marks the announcement read', async () => {
    const created = await createAnnouncement(t, {
      summary: 'Short text',
      featuredImage: { url: 'https://cdn.example/img.png', alt: 'An image', width: 800, height: 600 },
      attachments: [{ filename: 'rules.pdf', type: 'application/pdf', size: 1234, url: 'https://cdn.example/rules.pdf' }],
    });
    const token = await t.token('agent2');
    const first = await t.call('getAnnouncementById', { token, params: { id: created.id } });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.result).toMatchObject({
      id: created.id,
      title: created.title,
      summary: 'Short text',
      status: 'PUBLISHED',
      featuredImage: { url: 'https://cdn.example/img.png', alt: 'An image', width: 800, height: 600 },
      attachments: [
        { id: 1, filename: 'rules.pdf', type: 'application/pdf', size: 1234, url: 'https://cdn.example/rules.pdf', description: null },
      ],
      author: { firstName: 'Claire', lastName: 'Dubois', role: 'Administrator' },
      targeting: { isGlobal: true, userTypes: [], regions: [] },
      viewsCount: 1,
      statistics: { viewsCount: 1, likesCount: 0 },
      isRead: true,
      userLiked: false,
    });
    const second = await t.call('getAnnouncementById', { token, params: { id: created.id } });
    expect(second.body.result.viewsCount).toBe(1);
    const other = await t.call('getAnnouncementById', { token: await t.token('agent'), params: { id: created.id } });
    expect(other.body.result.viewsCount).toBe(2);
    const reads = await t.db
      .selectFrom('announcement_reads')
      .selectAll()
      .where('announcement_id', '=', created.id)
      .where('user_id', '=', await userId(t, 'agent2'))
      .execute();
    expect(reads).toHaveLength(1);
    const stored = await t.db.selectFrom('announcements').select('views_count').where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(stored.views_count).toBe(2);
  });

  it('answers 404 ANNOUNCEMENT_NOT_FOUND for an unknown id, a draft and an archived announcement', async () => {
    const token = await t.token('agent');
    for (const id of [999_999, await seededId(t, DRAFT), await seededId(t, ARCHIVED)]) {
      const res = await t.call('getAnnouncementById', { token, params: { id } });
      expect(res.status).toBe(404);
      expect(res.body.errors).toEqual({ code: 'ANNOUNCEMENT_NOT_FOUND', announcementId: id });
    }
  });

  it('answers 403 ACCESS_DENIED for an announcement of another audience, even once expired', async () => {
    const token = await t.token('agent');
    const res = await t.call('getAnnouncementById', { token, params: { id: await seededId(t, SUPERVISORS_ONLY) } });
    expect(res.status).toBe(403);
    expect(res.body.errors.code).toBe('ACCESS_DENIED');
    const other = await createAnnouncement(t, { targeting: { isGlobal: false, regions: ['SN'] } });
    await expireDirectly(t, other.id);
    const expiredOther = await t.call('getAnnouncementById', { token, params: { id: other.id } });
    expect(expiredOther.status).toBe(403); // the audience check comes before the expiry check
  });

  it('answers 410 ANNOUNCEMENT_EXPIRED with the expiry for an expired announcement, and counts no view', async () => {
    const id = await seededId(t, EXPIRED);
    const before = await t.db
      .selectFrom('announcements')
      .select(['views_count', 'expires_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    const res = await t.call('getAnnouncementById', { token: await t.token('agent'), params: { id } });
    expect(res.status).toBe(410);
    expect(res.body.errors).toEqual({ code: 'ANNOUNCEMENT_EXPIRED', announcementId: id, expiresAt: before.expires_at!.toISOString() });
    const after = await t.db.selectFrom('announcements').select('views_count').where('id', '=', id).executeTakeFirstOrThrow();
    expect(after.views_count).toBe(before.views_count);
  });

  it('answers 410 when an announcement read before (and cached) has expired since', async () => {
    const expiresAt = new Date(Date.now() + 10 * 60_000);
    const created = await createAnnouncement(t, { expiresAt: expiresAt.toISOString() });
    const token = await t.token('agent');
    // Read (and cached) a second before the expiry, read again a second after it, on the server's clock.
    const before = await atInstant(new Date(expiresAt.getTime() - 1000), () =>
      t.call('getAnnouncementById', { token, params: { id: created.id } }),
    );
    expect(before.status).toBe(200);
    expect(before.body.result.expiresAt).toBe(expiresAt.toISOString());
    // Nothing changed through the API: the cached detail itself must not be served past its expiry.
    const res = await atInstant(new Date(expiresAt.getTime() + 1000), () =>
      t.call('getAnnouncementById', { token, params: { id: created.id } }),
    );
    expect(res.status).toBe(410);
    expect(res.body.errors).toMatchObject({ code: 'ANNOUNCEMENT_EXPIRED', announcementId: created.id, expiresAt: expiresAt.toISOString() });
  });

  it('answers 400 for an id that is not a positive integer', async () => {
    expectInvalid(await t.call('getAnnouncementById', { token: await t.token('agent'), params: { id: 0 } }), 'params/id must be >= 1');
  });
});

describe('GET /trade/announcements/categories', () => {
  it('lists the active announcement categories by name with the counts of the caller’s audience', async () => {
    const agent = await t.call('listAnnouncementCategories', { token: await t.token('agent') });
    expect(agent.status).toBe(200);
    const names = agent.body.result.map((c: { name: string }) => c.name);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(expect.arrayContaining(['Company news', 'Regulations', 'Safety', 'System updates']));
    expect(names).not.toContain('General discussion'); // a forum category
    const supervisor = await t.call('listAnnouncementCategories', { token: await t.token('supervisor') });
    const count = (res: typeof agent, name: string) => res.body.result.find((c: { name: string }) => c.name === name)!.announcementsCount;
    // The supervisors-only announcement is in Company news.
    expect(count(supervisor, 'Company news')).toBe(count(agent, 'Company news') + 1);
    // Regulations holds only the Senegal announcement: nobody in France sees it.
    expect(count(agent, 'Regulations')).toBe(0);
    expect(agent.body.result.every((c: { isActive: boolean }) => c.isActive)).toBe(true);
  });

  it('does not list inactive categories', async () => {
    await t.db
      .insertInto('categories')
      .values({ scope: 'ANNOUNCEMENT', name: 'Retired category', description: null, color: '#000000', icon: 'x', is_active: false })
      .execute();
    const { invalidateAnnouncementCaches } = await import('../../../src/modules/announcements/cache.js');
    await invalidateAnnouncementCaches(t.app); // what the category administration does on a change
    const res = await t.call('listAnnouncementCategories', { token: await t.token('agent') });
    expect(res.body.result.map((c: { name: string }) => c.name)).not.toContain('Retired category');
  });
});

describe('GET /trade/announcements/important', () => {
  it('lists high-priority visible announcements by default, newest first, with the total count', async () => {
    const high = await createAnnouncement(t, { priority: 'HIGH', summary: 'Important!' });
    const res = await t.call('listImportantAnnouncements', { token: await t.token('agent') });
    expect(res.status).toBe(200);
    const items = res.body.result.announcements as { id: number; priority: string; publishedAt: string; category: { name: string } }[];
    expect(items.every((a) => a.priority === 'HIGH')).toBe(true);
    expect(items[0]).toMatchObject({ id: high.id, summary: 'Important!', category: { name: 'Company news' } });
    expect(res.body.result.count).toBe(items.length);
    expect(items.map((a) => a.id)).not.toContain(await seededId(t, DAKAR)); // HIGH but for Senegal
  });

  it('filters by unread (true: not read yet, false: read only) and by another priority', async () => {
    const token = await t.token('manager');
    const a7 = await seededId(t, 'A7 motorway closed near Valence: reroute shipments'); // HIGH, read by the agent only
    const fresh = await createAnnouncement(t, { priority: 'HIGH' });
    const read = await createAnnouncement(t, { priority: 'HIGH' });
    expect((await t.call('markAnnouncementRead', { token, params: { id: read.id } })).status).toBe(200);
    const unread = await t.call('listImportantAnnouncements', { token, query: { unread: true } });
    const unreadIds = unread.body.result.announcements.map((a: { id: number }) => a.id);
    expect(unreadIds).toEqual(expect.arrayContaining([fresh.id, a7]));
    expect(unreadIds).not.toContain(read.id);
    expect(unread.body.result.count).toBe(unreadIds.length);
    const alreadyRead = await t.call('listImportantAnnouncements', { token, query: { unread: false } });
    expect(alreadyRead.body.result.announcements.map((a: { id: number }) => a.id)).toContain(read.id);
    expect(alreadyRead.body.result.announcements.map((a: { id: number }) => a.id)).not.toContain(fresh.id);
    const low = await t.call('listImportantAnnouncements', { token, query: { priority: 'LOW' } });
    expect(low.body.result.announcements.map((a: { title: string }) => a.title)).toContain('Fuel-saving driving: five habits');
    expect(low.body.result.announcements.every((a: { priority: string }) => a.priority === 'LOW')).toBe(true);
  });

  it('answers 400 for an unknown priority or a non-boolean unread', async () => {
    const token = await t.token('agent');
    expectInvalid(
      await t.call('listImportantAnnouncements', { token, query: { priority: 'URGENT' } }),
      /^querystring\/priority must be one of: /,
    );
    expectInvalid(await t.call('listImportantAnnouncements', { token, query: { unread: 'yes' } }), 'querystring/unread must be boolean');
  });
});
