import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { expectInvalid } from '../../support/expect.js';
import { certificateCode, completeAs, createTutorial, SEEDED, seededTutorialId, userId, viewAllChapters } from './support.js';

const t = useTestApp();

async function progressRow(tutorialId: number, user: 'agent' | 'agent2' | 'manager') {
  return t.db
    .selectFrom('tutorial_progress')
    .selectAll()
    .where('tutorial_id', '=', tutorialId)
    .where('user_id', '=', await userId(t, user))
    .executeTakeFirst();
}

describe('POST /trade/tutorials/{id}/progress', () => {
  it('counts each chapter once, adds the time spent and moves the current chapter', async () => {
    const tutorial = await createTutorial(t);
    const [first, second] = tutorial.chapters;
    const token = await t.token('agent');
    const call = (body: object) => t.call('recordTutorialProgress', { token, params: { id: tutorial.id }, payload: body });

    const a = await call({ chapterId: first!.id, timeSpent: 100, currentPosition: 90 });
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    expect(a.body.result).toMatchObject({
      tutorialId: tutorial.id,
      userId: await userId(t, 'agent'),
      completionPercentage: 50,
      currentChapter: { id: first!.id, title: 'First part' },
      timeSpent: 100,
    });
    const b = await call({ chapterId: first!.id, timeSpent: 50 });
    expect(b.body.result).toMatchObject({ completionPercentage: 50, timeSpent: 150 });
    expect((await progressRow(tutorial.id, 'agent'))?.current_position).toBe(90);
    const c = await call({ chapterId: second!.id, timeSpent: 30, currentPosition: 400 });
    expect(c.body.result).toMatchObject({
      completionPercentage: 100,
      currentChapter: { id: second!.id, title: 'Second part' },
      timeSpent: 180,
    });
    const row = await progressRow(tutorial.id, 'agent');
    expect(row).toMatchObject({
      viewed_chapter_ids: [first!.id, second!.id],
      time_spent: 180,
      current_chapter_id: second!.id,
      current_position: 400,
      completed_at: null,
    });
    expect(Date.parse(c.body.result.lastViewedAt)).toBeGreaterThanOrEqual(Date.parse(a.body.result.lastViewedAt));

    const detail = await t.call('getTutorialById', { token, params: { id: tutorial.id } });
    expect(detail.body.result.userProgress).toMatchObject({
      completionPercentage: 100,
      timeSpent: 180,
      currentChapter: { id: second!.id },
    });
  });

  it('adds the time of simultaneous reports, each once, in one progress record', async () => {
    const tutorial = await createTutorial(t);
    const token = await t.token('manager');
    const reports = tutorial.chapters
      .flatMap((c) => [c, c])
      .map((c) => t.call('recordTutorialProgress', { token, params: { id: tutorial.id }, body: { chapterId: c.id, timeSpent: 25 } }));
    expect((await Promise.all(reports)).map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const rows = await t.db.selectFrom('tutorial_progress').selectAll().where('tutorial_id', '=', tutorial.id).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.time_spent).toBe(100);
    expect([...rows[0]!.viewed_chapter_ids].sort()).toEqual(tutorial.chapters.map((c) => c.id).sort());
  });

  it('keeps the progress of each user apart', async () => {
    const tutorial = await createTutorial(t);
    await t.call('recordTutorialProgress', {
      token: await t.token('agent'),
      params: { id: tutorial.id },
      body: { chapterId: tutorial.chapters[0]!.id, timeSpent: 10 },
    });
    const other = await t.call('recordTutorialProgress', {
      token: await t.token('agent2'),
      params: { id: tutorial.id },
      body: { chapterId: tutorial.chapters[1]!.id, timeSpent: 7 },
    });
    expect(other.body.result).toMatchObject({ completionPercentage: 50, timeSpent: 7, currentChapter: { id: tutorial.chapters[1]!.id } });
  });

  it('answers 404 CHAPTER_NOT_FOUND for a chapter of another tutorial', async () => {
    const tutorial = await createTutorial(t);
    const other = await createTutorial(t);
    const res = await t.call('recordTutorialProgress', {
      token: await t.token('agent'),
      params: { id: tutorial.id },
      body: { chapterId: other.chapters[0]!.id, timeSpent: 10 },
    });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual({ code: 'CHAPTER_NOT_FOUND', tutorialId: tutorial.id, chapterId: other.chapters[0]!.id });
    expect(await progressRow(tutorial.id, 'agent')).toBeUndefined();
  });

  it('answers 404 TUTORIAL_NOT_FOUND for a draft and an unknown tutorial', async () => {
    const draft = await createTutorial(t, { status: 'DRAFT' });
    const token = await t.token('agent');
    for (const id of [draft.id, 999999]) {
      const res = await t.call('recordTutorialProgress', {
        token,
        params: { id },
        body: { chapterId: draft.chapters[0]!.id, timeSpent: 1 },
      });
      expect(res.status).toBe(404);
      expect(res.body.errors).toEqual({ code: 'TUTORIAL_NOT_FOUND', tutorialId: id });
    }
  });

  it('refuses a missing chapter, a negative time and unknown fields with 400', async () => {
    const tutorial = await createTutorial(t);
    const token = await t.token('agent');
    const chapterId = tutorial.chapters[0]!.id;
    const cases: [Record<string, number>, string | RegExp][] = [
      [{ timeSpent: 5 }, 'body/chapterId is required'],
      [{ chapterId, timeSpent: -1 }, 'body/timeSpent must be >= 0'],
      [{ chapterId, timeSpent: 1, rating: 5 }, 'body/rating is not an accepted field'],
    ];
    for (const [body, message] of cases) {
      expectInvalid(await t.call('recordTutorialProgress', { token, params: { id: tutorial.id }, payload: body }), message);
    }
    expect(await progressRow(tutorial.id, 'agent')).toBeUndefined();
  });

  it('keeps counting time after completion without touching the completion', async () => {
    const tutorial = await createTutorial(t);
    const done = await completeAs(t, 'manager', tutorial);
    const res = await t.call('recordTutorialProgress', {
      token: await t.token('manager'),
      params: { id: tutorial.id },
      body: { chapterId: tutorial.chapters[0]!.id, timeSpent: 20 },
    });
    expect(res.body.result.timeSpent).toBe(done.timeSpent + 20);
    const row = await progressRow(tutorial.id, 'manager');
    expect(row?.completed_at?.toISOString()).toBe(done.completedAt);
  });
});

describe('POST /trade/tutorials/{id}/complete', () => {
  it('completes a fully viewed tutorial, stores the feedback and issues a 12-character certificate code', async () => {
    const tutorial = await createTutorial(t);
    await viewAllChapters(t, 'agent', tutorial, 200); // 400 s, 80 % of 10 min is 480 s
    const res = await t.call('completeTutorial', {
      token: await t.token('agent'),
      params: { id: tutorial.id },
      body: { timeSpent: 80, rating: 4, comment: 'Good one.' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result).toMatchObject({
      tutorialId: tutorial.id,
      userId: await userId(t, 'agent'),
      timeSpent: 480,
      rating: 4,
      comment: 'Good one.',
      certificateUrl: `/trade/tutorials/${tutorial.id}/certificate`,
    });
    const code = await certificateCode(t, tutorial.id, 'agent');
    expect(code).toMatch(/^[A-Z0-9]{12}$/);
    // The answer carries the code stored for the certificate, and the public check accepts it.
    expect(res.body.result.certificateCode).toBe(code);
    const verified = await t.call('verifyCertificate', { params: { code: code! } });
    expect(verified.body.result).toMatchObject({ valid: true, code, tutorial: { id: tutorial.id } });
    const detail = await t.call('getTutorialById', { token: await t.token('agent'), params: { id: tutorial.id } });
    expect(detail.body.result.statistics).toMatchObject({
      completionsCount: 1,
      averageRating: 4,
      ratingsCount: 1,
      averageCompletionTime: 480,
    });
    expect(detail.body.result.userProgress).toMatchObject({ isCompleted: true, userRating: 4 });
    expect(detail.body.result.isCompleted).toBe(true);
  });

  it('accepts a completion without feedback (the rating is not a criterion)', async () => {
    const tutorial = await createTutorial(t);
    const done = await completeAs(t, 'agent2', tutorial);
    expect(done).toMatchObject({ rating: null, comment: null, timeSpent: 600 });
  });

  it('answers 409 ALREADY_COMPLETED with the completion time, before any other check', async () => {
    const token = await t.token('agent');
    const start = await seededTutorialId(t, SEEDED.start);
    const seeded = await t.call('completeTutorial', { token, params: { id: start }, body: { timeSpent: 0 } });
    expect(seeded.status).toBe(409);
    expect(seeded.body.errors.code).toBe('ALREADY_COMPLETED');
    expect(seeded.body.errors.completedAt).toBe((await progressRow(start, 'agent'))!.completed_at!.toISOString());

    // Completed first, then given a prerequisite the user lacks: still ALREADY_COMPLETED.
    const tutorial = await createTutorial(t);
    await completeAs(t, 'agent', tutorial);
    const prerequisite = await createTutorial(t);
    const update = await t.call('updateTutorial', {
      token: await t.token('admin'),
      params: { id: tutorial.id },
      body: { prerequisiteIds: [prerequisite.id] },
    });
    expect(update.status).toBe(200);
    const again = await t.call('completeTutorial', { token, params: { id: tutorial.id }, body: { timeSpent: 0 } });
    expect(again.status).toBe(409);
    expect(again.body.errors.code).toBe('ALREADY_COMPLETED');
  });

  it('answers 409 PREREQUISITES_NOT_MET listing the missing published prerequisites, before the criteria', async () => {
    const transport = await seededTutorialId(t, SEEDED.transport);
    const res = await t.call('completeTutorial', { token: await t.token('agent2'), params: { id: transport }, body: { timeSpent: 5 } });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({
      code: 'PREREQUISITES_NOT_MET',
      missing: [{ id: await seededTutorialId(t, SEEDED.start), title: SEEDED.start }],
    });
    expect(await progressRow(transport, 'agent2')).toBeUndefined();
  });

  it('does not require a prerequisite that is a draft', async () => {
    const draft = await createTutorial(t, { status: 'DRAFT' });
    const tutorial = await createTutorial(t, { prerequisiteIds: [draft.id] });
    const done = await completeAs(t, 'agent', tutorial);
    expect(done.tutorialId).toBe(tutorial.id);
  });

  it('answers 409 COMPLETION_CRITERIA_NOT_MET with the figures, and records nothing', async () => {
    const tutorial = await createTutorial(t);
    const token = await t.token('agent2');
    await t.call('recordTutorialProgress', {
      token,
      params: { id: tutorial.id },
      body: { chapterId: tutorial.chapters[0]!.id, timeSpent: 500 },
    });
    const half = await t.call('completeTutorial', { token, params: { id: tutorial.id }, body: { timeSpent: 10 } });
    expect(half.status).toBe(409);
    expect(half.body.errors).toEqual({
      code: 'COMPLETION_CRITERIA_NOT_MET',
      completionPercentage: 50,
      timeSpent: 510,
      requiredTimeSpent: 480,
    });

    expect(await progressRow(tutorial.id, 'agent2')).toMatchObject({ time_spent: 500, completed_at: null });

    // Every chapter viewed, not enough time: 30 min needs 1440 s.
    const long = await createTutorial(t, { estimatedTime: 30 });
    await viewAllChapters(t, 'agent2', long, 100);
    const short = await t.call('completeTutorial', { token, params: { id: long.id }, body: { timeSpent: 1000, rating: 5 } });
    expect(short.status).toBe(409);
    expect(short.body.errors).toEqual({
      code: 'COMPLETION_CRITERIA_NOT_MET',
      completionPercentage: 100,
      timeSpent: 1200,
      requiredTimeSpent: 1440,
    });
    expect(await progressRow(long.id, 'agent2')).toMatchObject({
      time_spent: 200,
      completed_at: null,
      rating: null,
      certificate_code: null,
    });

    const never = await createTutorial(t);
    const none = await t.call('completeTutorial', { token, params: { id: never.id }, body: { timeSpent: 5000 } });
    expect(none.body.errors).toMatchObject({ code: 'COMPLETION_CRITERIA_NOT_MET', completionPercentage: 0 });
  });

  it('answers 404 TUTORIAL_NOT_FOUND for a draft or unknown tutorial', async () => {
    const token = await t.token('agent');
    const draft = await seededTutorialId(t, SEEDED.securing);
    for (const id of [draft, 999999]) {
      const res = await t.call('completeTutorial', { token, params: { id }, body: { timeSpent: 0 } });
      expect(res.status).toBe(404);
      expect(res.body.errors).toEqual({ code: 'TUTORIAL_NOT_FOUND', tutorialId: id });
    }
  });

  it('refuses a body without timeSpent or with a rating outside 1-5 with 400', async () => {
    const tutorial = await createTutorial(t);
    const token = await t.token('agent');
    const cases: [Record<string, number | boolean>, string | RegExp][] = [
      [{}, 'body/timeSpent is required'],
      [{ timeSpent: 0, rating: 6 }, 'body/rating must be <= 5'],
      [{ timeSpent: 0, rating: 0 }, 'body/rating must be >= 1'],
      [{ timeSpent: 0, extra: true }, 'body/extra is not an accepted field'],
    ];
    for (const [body, message] of cases) {
      expectInvalid(await t.call('completeTutorial', { token, params: { id: tutorial.id }, payload: body }), message);
    }
    expect(await progressRow(tutorial.id, 'agent')).toBeUndefined();
  });

  it('of two simultaneous completions, accepts one and answers ALREADY_COMPLETED to the other', async () => {
    const tutorial = await createTutorial(t);
    await viewAllChapters(t, 'manager', tutorial);
    const token = await t.token('manager');
    const results = await Promise.all(
      [1, 2].map(() => t.call('completeTutorial', { token, params: { id: tutorial.id }, body: { timeSpent: 60 } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const refused = results.find((r) => r.status === 409)!;
    const accepted = results.find((r) => r.status === 200)!;
    expect(refused.body.errors).toEqual({ code: 'ALREADY_COMPLETED', completedAt: accepted.body.result.completedAt });
    const rows = await t.db.selectFrom('tutorial_progress').selectAll().where('tutorial_id', '=', tutorial.id).execute();
    expect(rows).toHaveLength(1);
    // The time of the refused completion is not added.
    expect(rows[0]).toMatchObject({ time_spent: 660 });
    expect(rows[0]!.certificate_code).toMatch(/^[A-Z0-9]{12}$/);
  });
});
