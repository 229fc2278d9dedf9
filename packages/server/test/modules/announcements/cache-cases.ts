import { describe, expect, it } from 'vitest';
import type { TestApp } from '../../support/app.js';
import { atInstant, categoryId, createAnnouncement, uniqueTitle } from './helpers.js';

/**
 * The cache rules, run once with the process-local cache (cache.test.ts) and once through Redis
 * (cache-redis.test.ts). `app()` is the file's test app.
 */
export function cacheCases(app: () => TestApp) {
  const word = (label: string) => `${label}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

  async function list(user: 'agent' | 'agent2' | 'manager', search: string) {
    const t = app();
    const res = await t.call('listAnnouncements', { token: await t.token(user), query: { search } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.result.data as { id: number; title: string; priority: string; isRead: boolean; userLiked: boolean }[];
  }

  const renameDirectly = (id: number, title: string) => app().db.updateTable('announcements').set({ title }).where('id', '=', id).execute();

  describe('announcement caches', () => {
    it('serves a list from the cache until an admin update invalidates it', async () => {
      const t = app();
      const w = word('list');
      const created = await createAnnouncement(t, { content: `About ${w}.` });
      expect((await list('agent', w)).map((a) => a.title)).toEqual([created.title]);
      await renameDirectly(created.id, 'Renamed behind the cache');
      expect((await list('agent', w)).map((a) => a.title)).toEqual([created.title]); // the cached value
      const update = await t.call('updateAnnouncement', {
        token: await t.token('admin'),
        params: { id: created.id },
        body: { priority: 'HIGH' },
      });
      expect(update.status).toBe(200);
      expect(await list('agent', w)).toMatchObject([{ title: 'Renamed behind the cache', priority: 'HIGH' }]);
    });

    it('is invalidated by create, publish, archive, delete and bulk actions too', async () => {
      const t = app();
      const admin = await t.token('admin');
      const w = word('moves');
      expect(await list('agent', w)).toEqual([]); // cached empty
      const created = await createAnnouncement(t, { content: `${w}` });
      expect((await list('agent', w)).map((a) => a.id)).toEqual([created.id]);
      await t.call('archiveAnnouncement', { token: admin, params: { id: created.id } });
      expect(await list('agent', w)).toEqual([]);
      await t.call('publishAnnouncement', { token: admin, params: { id: created.id } });
      expect((await list('agent', w)).map((a) => a.id)).toEqual([created.id]);
      await t.call('bulkActionAnnouncements', { token: admin, body: { action: 'ARCHIVE', ids: [created.id] } });
      expect(await list('agent', w)).toEqual([]);
      await t.call('bulkActionAnnouncements', { token: admin, body: { action: 'PUBLISH', ids: [created.id] } });
      expect((await list('agent', w)).map((a) => a.id)).toEqual([created.id]);
      await t.call('deleteAnnouncement', { token: admin, params: { id: created.id } });
      expect(await list('agent', w)).toEqual([]);
    });

    it('serves the detail from the cache while still counting the views (once per user per day)', async () => {
      const t = app();
      const token = await t.token('agent');
      const created = await createAnnouncement(t);
      const first = await t.call('getAnnouncementById', { token, params: { id: created.id } });
      expect(first.body.result).toMatchObject({ title: created.title, viewsCount: 1 });
      await renameDirectly(created.id, 'Detail renamed behind the cache');
      const second = await t.call('getAnnouncementById', { token: await t.token('agent2'), params: { id: created.id } });
      expect(second.body.result).toMatchObject({ title: created.title, viewsCount: 2, statistics: { viewsCount: 2 } });
      await t.call('updateAnnouncement', { token: await t.token('admin'), params: { id: created.id }, body: { summary: 'New summary' } });
      const third = await t.call('getAnnouncementById', { token: await t.token('manager'), params: { id: created.id } });
      expect(third.body.result).toMatchObject({ title: 'Detail renamed behind the cache', summary: 'New summary', viewsCount: 3 });
      const again = await t.call('getAnnouncementById', { token, params: { id: created.id } });
      expect(again.body.result.viewsCount).toBe(3);
    });

    it('serves the categories from the cache until an announcement changes', async () => {
      const t = app();
      const token = await t.token('agent');
      const names = async () => (await t.call('listAnnouncementCategories', { token })).body.result.map((c: { name: string }) => c.name);
      const id = await categoryId(t, 'System updates');
      const newName = word('Platform changes ');
      expect(await names()).toContain('System updates');
      await t.db.updateTable('categories').set({ name: newName }).where('id', '=', id).execute();
      expect(await names()).toContain('System updates');
      await createAnnouncement(t);
      expect(await names()).toContain(newName);
      await t.db.updateTable('categories').set({ name: 'System updates' }).where('id', '=', id).execute();
      await createAnnouncement(t); // leaves the shared cache as the other cases expect it
    });

    it('keeps the per-user fields out of the cache: two users of one audience see their own read and like state', async () => {
      const t = app();
      const w = word('state');
      const created = await createAnnouncement(t, { content: w });
      expect(await list('agent2', w)).toMatchObject([{ id: created.id, isRead: false, userLiked: false }]); // fills the cache
      const agent = await t.token('agent');
      await t.call('likeAnnouncement', { token: agent, params: { id: created.id }, body: { action: 'LIKE' } });
      await t.call('markAnnouncementRead', { token: agent, params: { id: created.id } });
      expect(await list('agent', w)).toMatchObject([{ id: created.id, isRead: true, userLiked: true }]);
      expect(await list('agent2', w)).toMatchObject([{ id: created.id, isRead: false, userLiked: false }]);
    });

    it('keys entries by audience: the same query gives each role its own answer', async () => {
      const t = app();
      const w = word('audience');
      const created = await createAnnouncement(t, { content: w, targeting: { isGlobal: false, userTypes: ['TEAM_MANAGER'] } });
      expect(await list('agent', w)).toEqual([]);
      expect((await list('manager', w)).map((a) => a.id)).toEqual([created.id]);
      expect(await list('agent', w)).toEqual([]);
    });

    it('does not keep a list past the expiry of an announcement in it', async () => {
      const t = app();
      const w = word('expiry');
      const expiresAt = new Date(Date.now() + 10 * 60_000);
      const created = await createAnnouncement(t, { content: w, title: uniqueTitle('Short-lived'), expiresAt: expiresAt.toISOString() });
      // Listed (and cached) a second before the expiry on the server's clock: the entry may live one second.
      expect((await atInstant(new Date(expiresAt.getTime() - 1000), () => list('agent', w))).map((a) => a.id)).toEqual([created.id]);
      // A second after the expiry. Redis expires its entries on its own clock: wait (at least) out
      // the entry's second for real; a longer wait changes nothing.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect(await atInstant(new Date(expiresAt.getTime() + 1000), () => list('agent', w))).toEqual([]);
    });
  });
}
