import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { expectInvalid, expectUnauthenticated } from '../../support/expect.js';
import { categoryId, createTutorial, SEEDED, seededTutorialId, tagId } from './support.js';

const t = useTestApp();

const titles = (res: { body: { result: { data: { title: string }[] } } }) => res.body.result.data.map((d) => d.title);

describe('GET /trade/tutorials', () => {
  it('lists only the published tutorials, newest first, with the caller completion and SQL statistics', async () => {
    const res = await t.call('listTutorials', { token: await t.token('agent'), query: { limit: 50 } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const seeded = Object.values(SEEDED) as string[];
    // Other tests of this file may add tutorials: the seeded ones keep their relative order.
    expect(titles(res).filter((x) => seeded.includes(x))).toEqual([SEEDED.convoys, SEEDED.complaints, SEEDED.transport, SEEDED.start]);
    const published = await t.db
      .selectFrom('tutorials')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', '=', 'PUBLISHED')
      .executeTakeFirstOrThrow();
    expect(res.body.result.meta.total).toBe(Number(published.n));
    const start = res.body.result.data.find((d: { title: string }) => d.title === SEEDED.start);
    expect(start!.isCompleted).toBe(true);
    expect(start!.lastViewedAt).not.toBeNull();
    // Seed: agent (rating 5, 840 s) and manager (rating 4, 900 s) completed it, agent2 opened it.
    expect(start!.statistics).toEqual({
      viewsCount: 3,
      completionsCount: 2,
      averageRating: 4.5,
      ratingsCount: 2,
      averageCompletionTime: 870,
    });
    expect(start!.category).toMatchObject({ name: 'Getting started', color: '#00BCD4', icon: 'school' });
    expect(start!.author).toMatchObject({ firstName: 'Claire', lastName: 'Dubois', role: 'Administrator', bio: null, avatar: null });
    expect(start!.tags.map((g: { name: string }) => g.name)).toEqual(['platform', 'training']);
    expect(start!.duration).toBe('SHORT');
    const convoys = res.body.result.data.find((d: { title: string }) => d.title === SEEDED.convoys);
    expect(convoys).toMatchObject({ isCompleted: false, lastViewedAt: null, duration: 'LONG', estimatedTime: 90 });
    expect(convoys!.statistics).toEqual({
      viewsCount: 0,
      completionsCount: 0,
      averageRating: null,
      ratingsCount: 0,
      averageCompletionTime: null,
    });
  });

  it('filters by category, difficulty, duration, search and any of the tags', async () => {
    const token = await t.token('agent');
    const byCategory = await t.call('listTutorials', { token, query: { category: await categoryId(t, 'Transports') } });
    expect(titles(byCategory)).toEqual([SEEDED.convoys, SEEDED.transport]);
    const byDifficulty = await t.call('listTutorials', { token, query: { difficulty: 'INTERMEDIATE' } });
    expect(titles(byDifficulty)).toEqual([SEEDED.complaints]);
    const byDuration = await t.call('listTutorials', { token, query: { duration: 'MEDIUM' } });
    expect(titles(byDuration)).toEqual([SEEDED.complaints, SEEDED.transport]);
    const bySearch = await t.call('listTutorials', { token, query: { search: 'BORDER PAPERWORK' } });
    expect(titles(bySearch)).toEqual([SEEDED.convoys]);
    const byTags = await t.call('listTutorials', {
      token,
      query: { tags: `${await tagId(t, 'platform')},${await tagId(t, 'regulation')}` },
    });
    expect(titles(byTags)).toEqual([SEEDED.convoys, SEEDED.start]);
    const none = await t.call('listTutorials', { token, query: { search: 'no tutorial says this' } });
    expect(none.body.result).toEqual({ data: [], meta: { total: 0, current_page: 1, total_pages: 0, limit: 10 } });
  });

  it('sorts by popularity, rating and duration, each in its fixed direction, ties by id descending', async () => {
    const token = await t.token('agent2');
    type Item = { id: number; estimatedTime: number; statistics: { viewsCount: number; averageRating: number | null } };
    const list = async (sortBy: string) =>
      (await t.call('listTutorials', { token, query: { sortBy, limit: 50 } })).body.result.data as Item[];
    const ordered = (items: Item[], key: (i: Item) => number) =>
      items.every(
        (item, i) => i === 0 || key(items[i - 1]!) > key(item) || (key(items[i - 1]!) === key(item) && items[i - 1]!.id > item.id),
      );
    const popular = await list('popular');
    expect(ordered(popular, (i) => i.statistics.viewsCount)).toBe(true);
    expect(popular[0]!.id).toBe(await seededTutorialId(t, SEEDED.start));
    const rating = await list('rating');
    expect(ordered(rating, (i) => i.statistics.averageRating ?? -1)).toBe(true);
    expect(rating[0]!.statistics.averageRating).not.toBeNull();
    const duration = await list('duration');
    expect(ordered(duration, (i) => -i.estimatedTime)).toBe(true);
    const paged = await t.call('listTutorials', { token, query: { sortBy: 'duration', limit: 2, page: 2 } });
    expect(paged.body.result.data.map((d: Item) => d.id)).toEqual(duration.slice(2, 4).map((d) => d.id));
    expect(paged.body.result.meta).toMatchObject({ current_page: 2, limit: 2, total: duration.length });
  });

  it('refuses parameters that break their rule with 400', async () => {
    const token = await t.token('agent');
    for (const query of [{ limit: 51 }, { difficulty: 'EXPERT' }, { tags: 'a,b' }, { sortBy: 'views' }]) {
      const res = await t.call('listTutorials', { token, query });
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(Array.isArray(res.body.errors)).toBe(true);
    }
  });

  it('answers 401 without a token', async () => {
    const res = await t.call('listTutorials', {});
    expectUnauthenticated(res);
  });
});

describe('GET /trade/tutorials/{id}', () => {
  it('answers every field with the caller progress, published prerequisites and related tutorials', async () => {
    const id = await seededTutorialId(t, SEEDED.transport);
    const res = await t.call('getTutorialById', { token: await t.token('manager'), params: { id } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const r = res.body.result;
    expect(r.title).toBe(SEEDED.transport);
    expect(r.content).toContain('PENDING');
    expect(r.chapters.map((c: { title: string }) => c.title)).toEqual([
      'Creating the transport',
      'Choosing or creating the customer',
      'Uploading documents',
      'Following the status',
    ]);
    expect(r.chapters[1]).toMatchObject({ startTime: 480, duration: 540 });
    expect(r.video).toMatchObject({ duration: 2100, quality: '1080p' });
    expect(r.video!.subtitles).toHaveLength(2);
    expect(r.prerequisites).toEqual([{ id: await seededTutorialId(t, SEEDED.start), title: SEEDED.start, isCompleted: true }]);
    expect(r.relatedTutorials).toEqual([
      { id: await seededTutorialId(t, SEEDED.convoys), title: SEEDED.convoys, difficulty: 'ADVANCED', estimatedTime: 90 },
    ]);
    // Manager viewed 2 of 4 chapters and spent 1000 s (seed); the view refreshed lastViewedAt.
    expect(r.userProgress).toMatchObject({
      isCompleted: false,
      completionPercentage: 50,
      timeSpent: 1000,
      currentChapter: { id: r.chapters[1]!.id, title: 'Choosing or creating the customer' },
      userRating: null,
    });
    expect(Date.now() - Date.parse(r.lastViewedAt!)).toBeLessThan(60_000);
    expect(r.userProgress.lastViewedAt).toBe(r.lastViewedAt);
    expect(r.statistics.viewsCount).toBe(2); // the manager's seeded view of an earlier day, and today's
  });

  it("counts a view once per user per day, and starts a first viewer's progress at zero", async () => {
    const id = await seededTutorialId(t, SEEDED.complaints);
    const token = await t.token('agent2');
    const first = await t.call('getTutorialById', { token, params: { id } });
    expect(first.body.result.statistics.viewsCount).toBe(1);
    expect(first.body.result.userProgress).toMatchObject({
      isCompleted: false,
      completionPercentage: 0,
      timeSpent: 0,
      currentChapter: null,
    });
    expect(first.body.result.lastViewedAt).not.toBeNull();
    const again = await t.call('getTutorialById', { token, params: { id } });
    expect(again.body.result.statistics.viewsCount).toBe(1);
    const other = await t.call('getTutorialById', { token: await t.token('agent'), params: { id } });
    expect(other.body.result.statistics.viewsCount).toBe(2);
  });

  it('hides draft prerequisites and orders related tutorials by shared tags, then views', async () => {
    const category = await categoryId(t, 'Complaints');
    const [training, safety] = [await tagId(t, 'training'), await tagId(t, 'safety')];
    const draft = await createTutorial(t, { status: 'DRAFT', categoryId: category, tagIds: [training, safety] });
    const sharingTwo = await createTutorial(t, { categoryId: category, tagIds: [safety, training] });
    const noTags = await createTutorial(t, { categoryId: category });
    const main = await createTutorial(t, { categoryId: category, tagIds: [training, safety], prerequisiteIds: [draft.id] });
    const res = await t.call('getTutorialById', { token: await t.token('agent'), params: { id: main.id } });
    expect(res.body.result.prerequisites).toEqual([]);
    const related = res.body.result.relatedTutorials.map((x: { id: number }) => x.id);
    // The seeded complaints tutorial shares one tag (training); the draft and the tutorial itself never appear.
    expect(related).toEqual([sharingTwo.id, await seededTutorialId(t, SEEDED.complaints), noTags.id]);
  });

  it('answers 404 TUTORIAL_NOT_FOUND for a draft and for an unknown id', async () => {
    const token = await t.token('admin');
    const draft = await seededTutorialId(t, SEEDED.securing);
    for (const id of [draft, 999999]) {
      const res = await t.call('getTutorialById', { token, params: { id } });
      expect(res.status).toBe(404);
      expect(res.body.errors).toEqual({ code: 'TUTORIAL_NOT_FOUND', tutorialId: id });
    }
    const rows = await t.db.selectFrom('tutorial_progress').select('user_id').where('tutorial_id', '=', draft).execute();
    expect(rows).toEqual([]);
  });
});

describe('GET /trade/tutorials/categories', () => {
  it('lists the active tutorial categories by name with their published tutorial counts', async () => {
    const res = await t.call('listTutorialCategories', { token: await t.token('agent') });
    expect(res.status).toBe(200);
    const counts = Object.fromEntries(res.body.result.map((c: { name: string; tutorialsCount: number }) => [c.name, c.tutorialsCount]));
    expect(res.body.result.map((c: { name: string }) => c.name)).toEqual(['Complaints', 'Getting started', 'Safety', 'Transports']);
    expect(counts['Getting started']).toBe(1);
    expect(counts.Transports).toBe(2);
    expect(res.body.result.every((c: { isActive: boolean }) => c.isActive)).toBe(true);
  });

  it('does not list an inactive category', async () => {
    const id = await categoryId(t, 'Transports');
    await t.db.updateTable('categories').set({ is_active: false }).where('id', '=', id).execute();
    try {
      const res = await t.call('listTutorialCategories', { token: await t.token('agent') });
      expect(res.body.result.map((c: { id: number }) => c.id)).not.toContain(id);
    } finally {
      await t.db.updateTable('categories').set({ is_active: true }).where('id', '=', id).execute();
    }
  });
});

describe('GET /trade/tutorials/search', () => {
  it('ranks a title match above a content-only match, with a relevance score in 0..1', async () => {
    const inContent = await createTutorial(t, {
      title: 'Handling pallets at depots',
      content: 'Always check the wombat strap before leaving.',
    });
    const inTitle = await createTutorial(t, { title: 'Wombat strap basics', content: 'Straps and knots.' });
    const res = await t.call('searchTutorials', { token: await t.token('agent'), query: { q: 'wombat' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const r = res.body.result;
    expect(r.query).toBe('wombat');
    expect(r.filters).toEqual({ difficulty: [], duration: [], tags: [] });
    expect(r.data.map((d: { id: number }) => d.id)).toEqual([inTitle.id, inContent.id]);
    expect(r.data[0]!.relevanceScore).toBeGreaterThan(r.data[1]!.relevanceScore);
    expect(r.data[1]!.relevanceScore).toBeGreaterThan(0);
    expect(r.data[0]!.relevanceScore).toBeLessThan(1);
    expect(r.meta.total).toBe(2);
  });

  it('applies and echoes the list filters, the minimum rating and the maximum duration', async () => {
    const token = await t.token('agent');
    const base = { q: 'dashboard' };
    const found = await t.call('searchTutorials', {
      token,
      query: { ...base, difficulty: 'BEGINNER,ADVANCED', duration: 'SHORT', tags: String(await tagId(t, 'platform')) },
    });
    expect(found.body.result.data.map((d: { title: string }) => d.title)).toEqual([SEEDED.start]);
    expect(found.body.result.data[0]!.averageRating).toBe(4.5);
    expect(found.body.result.filters).toEqual({
      difficulty: ['BEGINNER', 'ADVANCED'],
      duration: ['SHORT'],
      tags: [await tagId(t, 'platform')],
    });
    expect((await t.call('searchTutorials', { token, query: { ...base, minRating: 4.5 } })).body.result.meta.total).toBe(1);
    expect((await t.call('searchTutorials', { token, query: { ...base, minRating: 5 } })).body.result.meta.total).toBe(0);
    expect((await t.call('searchTutorials', { token, query: { ...base, maxDuration: 14 } })).body.result.meta.total).toBe(0);
    expect((await t.call('searchTutorials', { token, query: { ...base, difficulty: 'INTERMEDIATE' } })).body.result.meta.total).toBe(0);
  });

  it('never finds a draft', async () => {
    await createTutorial(t, { title: 'Draft about marmots', status: 'DRAFT' });
    const res = await t.call('searchTutorials', { token: await t.token('admin'), query: { q: 'marmots' } });
    expect(res.body.result.data).toEqual([]);
  });

  it('refuses a missing or one-letter query and malformed filters with 400', async () => {
    const token = await t.token('agent');
    const cases: [Record<string, string | number>, string | RegExp][] = [
      [{}, 'querystring/q is required'],
      [{ q: 'a' }, 'querystring/q must NOT have fewer than 2 characters'],
      [{ q: 'ok', difficulty: 'BEGINNER,EXPERT' }, /^querystring\/difficulty /],
      [{ q: 'ok', minRating: 6 }, 'querystring/minRating must be <= 5'],
      [{ q: 'ok', limit: 51 }, 'querystring/limit must be <= 50'],
    ];
    for (const [query, message] of cases) expectInvalid(await t.call('searchTutorials', { token, query }), message);
  });
});
