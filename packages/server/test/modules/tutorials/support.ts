import type { components } from '@transport-ops/contract';
import { expect } from 'vitest';
import type { DemoUser, TestApp } from '../../support/app.js';

export type Tutorial = components['schemas']['Tutorial'];
type TutorialCreate = components['schemas']['TutorialCreate'];

/** Id of a seeded category by scope and name. */
export async function categoryId(t: TestApp, name: string, scope: 'TUTORIAL' | 'FORUM' | 'ANNOUNCEMENT' = 'TUTORIAL'): Promise<number> {
  const row = await t.db
    .selectFrom('categories')
    .select('id')
    .where('scope', '=', scope)
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Id of a seeded tag by name. */
export async function tagId(t: TestApp, name: string): Promise<number> {
  const row = await t.db.selectFrom('tags').select('id').where('name', '=', name).executeTakeFirstOrThrow();
  return row.id;
}

/** Id of a seeded tutorial by title. */
export async function seededTutorialId(t: TestApp, title: string): Promise<number> {
  const row = await t.db.selectFrom('tutorials').select('id').where('title', '=', title).executeTakeFirstOrThrow();
  return row.id;
}

export async function userId(t: TestApp, username: DemoUser): Promise<number> {
  const row = await t.db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirstOrThrow();
  return row.id;
}

export const SEEDED = {
  start: 'Getting started with Transport Operations',
  transport: 'Registering a transport and its documents',
  complaints: 'Handling customer complaints from filing to resolution',
  convoys: 'Planning cross-border convoys',
  securing: 'Load securing and safety checks',
} as const;

let counter = 0;

/** A valid creation body: two chapters, 10 minutes (so 480 s of time spent complete it). */
export async function tutorialBody(t: TestApp, overrides: Partial<TutorialCreate> = {}): Promise<TutorialCreate> {
  counter += 1;
  return {
    title: `Test tutorial ${counter}`,
    description: 'A tutorial written by a test.',
    content: 'Plain test content.',
    difficulty: 'BEGINNER',
    estimatedTime: 10,
    categoryId: await categoryId(t, 'Safety'),
    chapters: [
      { title: 'First part', startTime: 0, duration: 300 },
      { title: 'Second part', startTime: 300, duration: 300, description: 'The end.' },
    ],
    status: 'PUBLISHED',
    ...overrides,
  };
}

/** Creates a tutorial as the supervisor and answers it. */
export async function createTutorial(t: TestApp, overrides: Partial<TutorialCreate> = {}): Promise<Tutorial> {
  const res = await t.call('createTutorial', { token: await t.token('supervisor'), body: await tutorialBody(t, overrides) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.result;
}

/** Reports every chapter of the tutorial as viewed by the user, with `secondsEach` per chapter. */
export async function viewAllChapters(t: TestApp, user: DemoUser, tutorial: Tutorial, secondsEach = 300): Promise<void> {
  const token = await t.token(user);
  for (const chapter of tutorial.chapters) {
    const res = await t.call('recordTutorialProgress', {
      token,
      params: { id: tutorial.id },
      body: { chapterId: chapter.id, timeSpent: secondsEach },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
}

/** Views everything and completes the tutorial; answers the completion. */
export async function completeAs(t: TestApp, user: DemoUser, tutorial: Tutorial) {
  await viewAllChapters(t, user, tutorial);
  const res = await t.call('completeTutorial', { token: await t.token(user), params: { id: tutorial.id }, body: { timeSpent: 0 } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.result as components['schemas']['TutorialCompletion'];
}

/** The certificate code of a user's completion, as stored. */
export async function certificateCode(t: TestApp, tutorialId: number, user: DemoUser): Promise<string | null> {
  const row = await t.db
    .selectFrom('tutorial_progress')
    .select('certificate_code')
    .where('tutorial_id', '=', tutorialId)
    .where('user_id', '=', await userId(t, user))
    .executeTakeFirst();
  return row?.certificate_code ?? null;
}
