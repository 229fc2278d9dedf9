import { describe, expect, it } from 'vitest';
import { type DemoUser, useTestApp } from '../../support/app.js';
import { expectInvalid } from '../../support/expect.js';
import { createAnnouncement, expireDirectly, seededId, userId } from './helpers.js';

const t = useTestApp();

const likesOf = async (id: number) => {
  const row = await t.db.selectFrom('announcements').select('likes_count').where('id', '=', id).executeTakeFirstOrThrow();
  const rows = await t.db.selectFrom('announcement_likes').select('user_id').where('announcement_id', '=', id).execute();
  return { stored: row.likes_count, rows: rows.length };
};

describe('POST /trade/announcements/{id}/mark-read', () => {
  it('records the read time once and answers it again on later calls, without counting a view', async () => {
    const created = await createAnnouncement(t);
    const token = await t.token('agent');
    const first = await t.call('markAnnouncementRead', { token, params: { id: created.id } });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.result).toMatchObject({ announcementId: created.id, userId: await userId(t, 'agent') });
    expect(Date.parse(first.body.result.readAt)).toBeLessThanOrEqual(Date.now());
    const again = await t.call('markAnnouncementRead', { token, params: { id: created.id } });
    expect(again.status).toBe(200);
    expect(again.body.result.readAt).toBe(first.body.result.readAt);
    const row = await t.db.selectFrom('announcements').select('views_count').where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(row.views_count).toBe(0);
    const list = await t.call('listAnnouncements', { token, query: { search: created.title } });
    expect(list.body.result.data[0]).toMatchObject({ id: created.id, isRead: true });
  });

  it('answers 404 for unknown, draft and archived announcements, 403 for another audience, 410 once expired', async () => {
    const token = await t.token('agent');
    for (const id of [999_999, await seededId(t, 'Maintenance window for the platform'), await seededId(t, 'Old portal shutdown')]) {
      const res = await t.call('markAnnouncementRead', { token, params: { id } });
      expect(res.status).toBe(404);
      expect(res.body.errors).toEqual({ code: 'ANNOUNCEMENT_NOT_FOUND', announcementId: id });
    }
    const denied = await t.call('markAnnouncementRead', {
      token,
      params: { id: await seededId(t, 'Port of Dakar: new customs pre-declaration') },
    });
    expect(denied.status).toBe(403);
    expect(denied.body.errors.code).toBe('ACCESS_DENIED');
    const created = await createAnnouncement(t);
    const expiresAt = await expireDirectly(t, created.id);
    const expired = await t.call('markAnnouncementRead', { token, params: { id: created.id } });
    expect(expired.status).toBe(410);
    expect(expired.body.errors).toEqual({ code: 'ANNOUNCEMENT_EXPIRED', announcementId: created.id, expiresAt });
  });
});

describe('POST /trade/announcements/{id}/like', () => {
  it('adds the like, refuses a second one with 409 LIKE_ALREADY_EXISTS, then withdraws it', async () => {
    const created = await createAnnouncement(t);
    const token = await t.token('agent');
    const liked = await t.call('likeAnnouncement', { token, params: { id: created.id }, body: { action: 'LIKE' } });
    expect(liked.status, JSON.stringify(liked.body)).toBe(200);
    expect(liked.body.result).toEqual({ announcementId: created.id, action: 'LIKE', likesCount: 1, userLiked: true });
    const twice = await t.call('likeAnnouncement', { token, params: { id: created.id }, body: { action: 'LIKE' } });
    expect(twice.status).toBe(409);
    expect(twice.body.errors).toEqual({ code: 'LIKE_ALREADY_EXISTS', announcementId: created.id });
    const detail = await t.call('getAnnouncementById', { token, params: { id: created.id } });
    expect(detail.body.result).toMatchObject({ userLiked: true, likesCount: 1 });
    const removed = await t.call('likeAnnouncement', { token, params: { id: created.id }, body: { action: 'REMOVE' } });
    expect(removed.body.result).toEqual({ announcementId: created.id, action: 'REMOVE', likesCount: 0, userLiked: false });
    expect(await likesOf(created.id)).toEqual({ stored: 0, rows: 0 });
  });

  it('accepts REMOVE without a like: 200 with userLiked false and the count unchanged', async () => {
    const id = await seededId(t, 'Welcome to the new Transport Operations platform'); // liked by agent and manager
    const before = await likesOf(id);
    const res = await t.call('likeAnnouncement', { token: await t.token('agent2'), params: { id }, body: { action: 'REMOVE' } });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({ announcementId: id, action: 'REMOVE', likesCount: before.stored, userLiked: false });
    expect(await likesOf(id)).toEqual(before);
  });

  it('keeps the counter exact under parallel likes by different users', async () => {
    const created = await createAnnouncement(t);
    const users: DemoUser[] = ['agent', 'agent2', 'manager', 'supervisor', 'admin'];
    const tokens = await Promise.all(users.map((u) => t.token(u)));
    const results = await Promise.all(
      tokens.map((token) => t.call('likeAnnouncement', { token, params: { id: created.id }, body: { action: 'LIKE' } })),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(results.map((r) => r.body.result.likesCount).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(await likesOf(created.id)).toEqual({ stored: 5, rows: 5 });
    const removals = await Promise.all(
      tokens.slice(0, 3).map((token) => t.call('likeAnnouncement', { token, params: { id: created.id }, body: { action: 'REMOVE' } })),
    );
    expect(removals.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(await likesOf(created.id)).toEqual({ stored: 2, rows: 2 });
  });

  it('lets exactly one of two parallel likes by the same user win; the other answers 409', async () => {
    const created = await createAnnouncement(t);
    const token = await t.token('manager');
    const results = await Promise.all(
      [1, 2, 3].map(() => t.call('likeAnnouncement', { token, params: { id: created.id }, body: { action: 'LIKE' } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    expect(await likesOf(created.id)).toEqual({ stored: 1, rows: 1 });
  });

  it('answers 404, 403 and 410 with the same visibility checks as the detail', async () => {
    const token = await t.token('agent');
    const body = { action: 'LIKE' };
    const draft = await seededId(t, 'Maintenance window for the platform');
    expect((await t.call('likeAnnouncement', { token, params: { id: 999_999 }, payload: body })).status).toBe(404);
    expect((await t.call('likeAnnouncement', { token, params: { id: draft }, payload: body })).body.errors).toEqual({
      code: 'ANNOUNCEMENT_NOT_FOUND',
      announcementId: draft,
    });
    const denied = await t.call('likeAnnouncement', {
      token,
      params: { id: await seededId(t, 'Supervisors: quarterly validation targets') },
      payload: body,
    });
    expect(denied.status).toBe(403);
    const expired = await t.call('likeAnnouncement', { token, params: { id: await seededId(t, 'Winter tyre campaign') }, payload: body });
    expect(expired.status).toBe(410);
    expect(expired.body.errors.code).toBe('ANNOUNCEMENT_EXPIRED');
  });

  it('answers 400 for a missing or unknown action and an unknown field', async () => {
    const token = await t.token('agent');
    const id = await seededId(t, 'Welcome to the new Transport Operations platform');
    const before = await likesOf(id);
    expectInvalid(await t.call('likeAnnouncement', { token, params: { id }, payload: {} }), 'body/action is required');
    expectInvalid(
      await t.call('likeAnnouncement', { token, params: { id }, payload: { action: 'LOVE' } }),
      /^body\/action must be one of: /,
    );
    expectInvalid(
      await t.call('likeAnnouncement', { token, params: { id }, payload: { action: 'LIKE', extra: 1 } }),
      'body/extra is not an accepted field',
    );
    expect(await likesOf(id)).toEqual(before);
  });
});
