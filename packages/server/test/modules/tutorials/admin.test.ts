import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { expectInvalid } from '../../support/expect.js';
import {
  categoryId,
  certificateCode,
  completeAs,
  createTutorial,
  SEEDED,
  seededTutorialId,
  tagId,
  tutorialBody,
  userId,
  viewAllChapters,
} from './support.js';

const t = useTestApp();

describe('access to the admin tutorial operations', () => {
  it('refuses agents and team managers with 403 FORBIDDEN, and deletion to supervisors', async () => {
    const id = await seededTutorialId(t, SEEDED.securing);
    for (const user of ['agent', 'manager'] as const) {
      const token = await t.token(user);
      const calls = [
        t.call('listAdminTutorials', { token }),
        t.call('getAdminTutorialById', { token, params: { id } }),
        t.call('createTutorial', { token, body: await tutorialBody(t) }),
        t.call('updateTutorial', { token, params: { id }, body: { title: 'Hijacked title' } }),
        t.call('deleteTutorial', { token, params: { id } }),
      ];
      for (const res of await Promise.all(calls)) {
        expect(res.status).toBe(403);
        expect(res.body.errors.code).toBe('FORBIDDEN');
      }
    }
    const supervisor = await t.call('deleteTutorial', { token: await t.token('supervisor'), params: { id } });
    expect(supervisor.status).toBe(403);
    const still = await t.call('getAdminTutorialById', { token: await t.token('supervisor'), params: { id } });
    expect(still.body.result.title).toBe(SEEDED.securing);
  });
});

describe('GET /admin/tutorials', () => {
  it('lists every status with counters, filters and sorts', async () => {
    const token = await t.token('supervisor');
    const drafts = await t.call('listAdminTutorials', { token, query: { status: 'DRAFT', search: 'securing' } });
    expect(drafts.status).toBe(200);
    expect(drafts.body.result.data).toHaveLength(1);
    expect(drafts.body.result.data[0]).toMatchObject({
      title: SEEDED.securing,
      status: 'DRAFT',
      chaptersCount: 3,
      prerequisitesCount: 0,
      duration: 'MEDIUM',
    });

    const transports = await t.call('listAdminTutorials', {
      token,
      query: { categoryId: await categoryId(t, 'Transports'), sortBy: 'estimatedTime', sortOrder: 'ASC' },
    });
    expect(transports.body.result.data.map((d: { title: string }) => d.title)).toEqual([SEEDED.transport, SEEDED.convoys]);
    expect(transports.body.result.data[1]).toMatchObject({ prerequisitesCount: 1, chaptersCount: 3 });

    const byAdmin = await t.call('listAdminTutorials', { token, query: { authorId: await userId(t, 'admin') } });
    expect(byAdmin.body.result.data.map((d: { title: string }) => d.title)).toEqual([SEEDED.start]);
    expect(byAdmin.body.result.data[0]!.statistics).toMatchObject({ completionsCount: 2, averageRating: 4.5 });

    const advanced = await t.call('listAdminTutorials', { token, query: { difficulty: 'ADVANCED', duration: 'LONG' } });
    expect(advanced.body.result.meta.total).toBe(1);

    const rated = await t.call('listAdminTutorials', { token, query: { sortBy: 'averageRating', limit: 1 } });
    expect(rated.body.result.data[0]!.title).toBe(SEEDED.start);
    expect(rated.body.result.meta.limit).toBe(1);
  });

  it('refuses an unknown sortBy and a limit above 50 with 400', async () => {
    const token = await t.token('admin');
    const cases: [Record<string, string | number>, string | RegExp][] = [
      [{ sortBy: 'author' }, /^querystring\/sortBy must be one of: /],
      [{ limit: 51 }, 'querystring/limit must be <= 50'],
      [{ status: 'ARCHIVED' }, /^querystring\/status must be one of: /],
    ];
    for (const [query, message] of cases) expectInvalid(await t.call('listAdminTutorials', { token, query }), message);
  });
});

describe('POST /admin/tutorials', () => {
  it('creates a draft by default with chapters in order, derived duration, numbered attachments and the caller as author', async () => {
    const [training, safety] = [await tagId(t, 'training'), await tagId(t, 'safety')];
    const start = await seededTutorialId(t, SEEDED.start);
    const body = await tutorialBody(t, {
      title: 'Night driving',
      summary: null,
      estimatedTime: 45,
      tagIds: [safety, training],
      prerequisiteIds: [start],
      thumbnail: { url: 'https://cdn.example/night.jpg' },
      video: { url: 'https://cdn.example/night.mp4', duration: 2700 },
      attachments: [
        { filename: 'a.pdf', type: 'application/pdf', size: 10, url: 'https://cdn.example/a.pdf' },
        { filename: 'b.png', type: 'image/png', size: 20, url: 'https://cdn.example/b.png', description: 'Map' },
      ],
    });
    delete body.status;
    const res = await t.call('createTutorial', { token: await t.token('supervisor'), body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const r = res.body.result;
    expect(r).toMatchObject({
      title: 'Night driving',
      summary: null,
      status: 'DRAFT',
      duration: 'MEDIUM',
      estimatedTime: 45,
      thumbnail: { url: 'https://cdn.example/night.jpg', alt: null, width: null, height: null },
      video: { url: 'https://cdn.example/night.mp4', duration: 2700, size: null, quality: null, subtitles: [] },
      prerequisites: [{ id: start, title: SEEDED.start, status: 'PUBLISHED' }],
      author: { id: await userId(t, 'supervisor'), firstName: 'Moussa', lastName: 'Diop', role: 'Supervisor' },
      statistics: { viewsCount: 0, completionsCount: 0, averageRating: null, ratingsCount: 0, averageCompletionTime: null },
    });
    expect(r.attachments.map((a: { id: number; description: string | null }) => [a.id, a.description])).toEqual([
      [1, null],
      [2, 'Map'],
    ]);
    expect(r.chapters.map((c: { title: string; startTime: number }) => [c.title, c.startTime])).toEqual([
      ['First part', 0],
      ['Second part', 300],
    ]);
    expect(r.tags.map((g: { name: string }) => g.name)).toEqual(['safety', 'training']);
    const users = await t.call('getTutorialById', { token: await t.token('agent'), params: { id: r.id } });
    expect(users.status).toBe(404);
  });

  it('refuses a chapter that starts before the previous one, and a duration field, with 400', async () => {
    const token = await t.token('admin');
    const decreasing = await tutorialBody(t, {
      chapters: [
        { title: 'One', startTime: 100, duration: 10 },
        { title: 'Two', startTime: 50, duration: 10 },
      ],
    });
    const res = await t.call('createTutorial', { token, body: decreasing });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(["body/chapters.1.startTime must not be lower than the previous chapter's startTime (100)"]);
    const withDuration = await t.call('createTutorial', { token, payload: { ...(await tutorialBody(t)), duration: 'SHORT' } });
    expect(withDuration.status).toBe(400);
  });

  it('answers 404 for an unknown, inactive or other-scope category, an unknown tag and an unknown prerequisite', async () => {
    const token = await t.token('admin');
    const forum = await categoryId(t, 'General discussion', 'FORUM');
    const inactive = await t.db
      .insertInto('categories')
      .values({ scope: 'TUTORIAL', name: 'Retired tutorials', is_active: false })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const id of [forum, inactive.id, 999999]) {
      const res = await t.call('createTutorial', { token, body: await tutorialBody(t, { categoryId: id }) });
      expect(res.status).toBe(404);
      expect(res.body.errors).toEqual({ code: 'CATEGORY_NOT_FOUND', categoryId: id });
    }
    const tags = await t.call('createTutorial', { token, body: await tutorialBody(t, { tagIds: [await tagId(t, 'safety'), 999998] }) });
    expect(tags.body.errors).toEqual({ code: 'TAG_NOT_FOUND', tagIds: [999998] });
    const prerequisite = await t.call('createTutorial', { token, body: await tutorialBody(t, { prerequisiteIds: [999997] }) });
    expect(prerequisite.status).toBe(404);
    expect(prerequisite.body.errors).toEqual({ code: 'TUTORIAL_NOT_FOUND', tutorialId: 999997 });
    const count = await t.db
      .selectFrom('tutorials')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('title', 'like', 'Test tutorial %')
      .where('category_id', '=', forum)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(0);
  });
});

describe('GET /admin/tutorials/{id}', () => {
  it('answers a draft with its prerequisites whatever their status, without counting a view', async () => {
    const draftPrerequisite = await createTutorial(t, { status: 'DRAFT' });
    const tutorial = await createTutorial(t, { status: 'DRAFT', prerequisiteIds: [draftPrerequisite.id] });
    const res = await t.call('getAdminTutorialById', { token: await t.token('supervisor'), params: { id: tutorial.id } });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({
      id: tutorial.id,
      status: 'DRAFT',
      prerequisites: [{ id: draftPrerequisite.id, status: 'DRAFT' }],
    });
    expect(res.body.result.statistics.viewsCount).toBe(0);
    const rows = await t.db.selectFrom('tutorial_progress').select('user_id').where('tutorial_id', '=', tutorial.id).execute();
    expect(rows).toEqual([]);
  });

  it('answers 404 TUTORIAL_NOT_FOUND for an unknown id', async () => {
    const res = await t.call('getAdminTutorialById', { token: await t.token('admin'), params: { id: 999999 } });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual({ code: 'TUTORIAL_NOT_FOUND', tutorialId: 999999 });
  });
});

describe('PATCH /admin/tutorials/{id}', () => {
  it('changes the given fields, derives the duration again and publishes', async () => {
    const tutorial = await createTutorial(t, { status: 'DRAFT', tagIds: [await tagId(t, 'safety')] });
    const res = await t.call('updateTutorial', {
      token: await t.token('supervisor'),
      params: { id: tutorial.id },
      body: { estimatedTime: 80, status: 'PUBLISHED', tagIds: [await tagId(t, 'fuel')], summary: 'Now longer.' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result).toMatchObject({
      estimatedTime: 80,
      duration: 'LONG',
      status: 'PUBLISHED',
      summary: 'Now longer.',
      title: tutorial.title,
    });
    expect(res.body.result.tags.map((g: { name: string }) => g.name)).toEqual(['fuel']);
    expect(res.body.result.chapters).toEqual(tutorial.chapters);
    expect(Date.parse(res.body.result.updatedAt)).toBeGreaterThan(Date.parse(tutorial.updatedAt));
    const users = await t.call('getTutorialById', { token: await t.token('agent'), params: { id: tutorial.id } });
    expect(users.status).toBe(200);
  });

  it('replaces the chapters: viewed chapters and current chapter are cleared, completions kept', async () => {
    const tutorial = await createTutorial(t);
    await viewAllChapters(t, 'agent', tutorial, 10);
    await completeAs(t, 'agent2', tutorial);
    const code = await certificateCode(t, tutorial.id, 'agent2');
    const res = await t.call('updateTutorial', {
      token: await t.token('admin'),
      params: { id: tutorial.id },
      body: { chapters: [{ title: 'Only part', startTime: 0, duration: 600 }] },
    });
    expect(res.status).toBe(200);
    expect(res.body.result.chapters).toHaveLength(1);
    expect(tutorial.chapters.map((c) => c.id)).not.toContain(res.body.result.chapters[0]!.id);
    const agent = await t.call('getTutorialById', { token: await t.token('agent'), params: { id: tutorial.id } });
    expect(agent.body.result.userProgress).toMatchObject({
      completionPercentage: 0,
      currentChapter: null,
      timeSpent: 20,
      isCompleted: false,
    });
    const agent2 = await t.call('getTutorialById', { token: await t.token('agent2'), params: { id: tutorial.id } });
    expect(agent2.body.result.userProgress.isCompleted).toBe(true);
    expect(await certificateCode(t, tutorial.id, 'agent2')).toBe(code);
  });

  it('moves a tutorial back to draft: hidden from users at once', async () => {
    const tutorial = await createTutorial(t);
    const res = await t.call('updateTutorial', { token: await t.token('admin'), params: { id: tutorial.id }, body: { status: 'DRAFT' } });
    expect(res.body.result.status).toBe('DRAFT');
    expect((await t.call('getTutorialById', { token: await t.token('agent'), params: { id: tutorial.id } })).status).toBe(404);
  });

  it('refuses prerequisites that would form a cycle with 409 and a list naming the cycle', async () => {
    const a = await createTutorial(t);
    const b = await createTutorial(t, { prerequisiteIds: [a.id] });
    const c = await createTutorial(t, { prerequisiteIds: [b.id] });
    const token = await t.token('supervisor');
    const cycle = await t.call('updateTutorial', { token, params: { id: a.id }, body: { prerequisiteIds: [c.id] } });
    expect(cycle.status).toBe(409);
    expect(cycle.body.errors).toEqual([
      `body/prerequisiteIds: tutorial ${c.id} already requires tutorial ${a.id} (${c.id} → ${b.id} → ${a.id}), so ${a.id} cannot require ${c.id}`,
    ]);
    const self = await t.call('updateTutorial', { token, params: { id: a.id }, body: { prerequisiteIds: [a.id] } });
    expect(self.status).toBe(409);
    expect(self.body.errors).toEqual([`body/prerequisiteIds: tutorial ${a.id} cannot require itself`]);
    const rows = await t.db.selectFrom('tutorial_prerequisites').select('prerequisite_id').where('tutorial_id', '=', a.id).execute();
    expect(rows).toEqual([]);
    // Replacing b's own prerequisites is not a cycle through b.
    const replaced = await t.call('updateTutorial', { token, params: { id: b.id }, body: { prerequisiteIds: [] } });
    expect(replaced.body.result.prerequisites).toEqual([]);
    const now = await t.call('updateTutorial', { token, params: { id: a.id }, body: { prerequisiteIds: [c.id] } });
    expect(now.status).toBe(200);
    expect(now.body.result.prerequisites).toEqual([{ id: c.id, title: c.title, status: 'PUBLISHED' }]);
  });

  it('of two simultaneous updates making two tutorials require each other, accepts exactly one', async () => {
    const a = await createTutorial(t);
    const b = await createTutorial(t);
    const token = await t.token('admin');
    const results = await Promise.all([
      t.call('updateTutorial', { token, params: { id: a.id }, body: { prerequisiteIds: [b.id] } }),
      t.call('updateTutorial', { token, params: { id: b.id }, body: { prerequisiteIds: [a.id] } }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const edges = await t.db.selectFrom('tutorial_prerequisites').selectAll().where('tutorial_id', 'in', [a.id, b.id]).execute();
    expect(edges).toHaveLength(1);
  });

  it('answers 404 for an unknown tutorial, category, tag or prerequisite, and 400 for an empty body', async () => {
    const token = await t.token('admin');
    const tutorial = await createTutorial(t);
    const unknown = await t.call('updateTutorial', { token, params: { id: 999999 }, body: { title: 'Nothing here' } });
    expect(unknown.body.errors).toEqual({ code: 'TUTORIAL_NOT_FOUND', tutorialId: 999999 });
    const category = await t.call('updateTutorial', { token, params: { id: tutorial.id }, body: { categoryId: 999999 } });
    expect(category.body.errors).toEqual({ code: 'CATEGORY_NOT_FOUND', categoryId: 999999 });
    const tag = await t.call('updateTutorial', { token, params: { id: tutorial.id }, body: { tagIds: [999999] } });
    expect(tag.body.errors).toEqual({ code: 'TAG_NOT_FOUND', tagIds: [999999] });
    const prerequisite = await t.call('updateTutorial', { token, params: { id: tutorial.id }, body: { prerequisiteIds: [999999] } });
    expect(prerequisite.status).toBe(404);
    expect(prerequisite.body.errors).toEqual({ code: 'TUTORIAL_NOT_FOUND', tutorialId: 999999 });
    const empty = await t.call('updateTutorial', { token, params: { id: tutorial.id }, body: {} });
    expect(empty.status).toBe(400);
    const decreasing = await t.call('updateTutorial', {
      token,
      params: { id: tutorial.id },
      body: {
        chapters: [
          { title: 'B', startTime: 9, duration: 1 },
          { title: 'A', startTime: 3, duration: 1 },
        ],
      },
    });
    expect(decreasing.status).toBe(400);
  });
});

describe('DELETE /admin/tutorials/{id}', () => {
  it('deletes a tutorial with its progress; its certificates stay verifiable with the title they were issued for', async () => {
    const tutorial = await createTutorial(t);
    await completeAs(t, 'agent', tutorial);
    const code = (await certificateCode(t, tutorial.id, 'agent'))!;
    const res = await t.call('deleteTutorial', { token: await t.token('admin'), params: { id: tutorial.id } });
    expect(res.status).toBe(200);
    expect(res.body.result).toBeNull();
    expect((await t.call('getAdminTutorialById', { token: await t.token('admin'), params: { id: tutorial.id } })).status).toBe(404);
    const verify = await t.call('verifyCertificate', { params: { code } });
    expect(verify.status).toBe(200);
    expect(verify.body.result).toMatchObject({ valid: true, code, tutorial: { id: null, title: tutorial.title } });
    const progress = await t.db.selectFrom('tutorial_progress').select('user_id').where('tutorial_id', '=', tutorial.id).execute();
    expect(progress).toEqual([]);
    const rows = await t.db.selectFrom('tutorial_chapters').select('id').where('tutorial_id', '=', tutorial.id).execute();
    expect(rows).toEqual([]);
  });

  it('refuses to delete a prerequisite of other tutorials with 409 RESOURCE_IN_USE', async () => {
    const required = await createTutorial(t);
    await createTutorial(t, { prerequisiteIds: [required.id] });
    await createTutorial(t, { prerequisiteIds: [required.id], status: 'DRAFT' });
    const res = await t.call('deleteTutorial', { token: await t.token('admin'), params: { id: required.id } });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({ code: 'RESOURCE_IN_USE', resource: 'tutorial', id: required.id, usageCount: 2 });
    const still = await t.call('getTutorialById', { token: await t.token('agent'), params: { id: required.id } });
    expect(still.status).toBe(200);
  });

  it('answers 404 TUTORIAL_NOT_FOUND for an unknown id', async () => {
    const res = await t.call('deleteTutorial', { token: await t.token('admin'), params: { id: 999999 } });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual({ code: 'TUTORIAL_NOT_FOUND', tutorialId: 999999 });
  });
});
