import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldStatistics } from '../../../src/lib/counters.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { createTutorial, viewAllChapters } from './support.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

interface Figures {
  tutorial_id: number;
  completions: number;
  ratings: number;
  rating_sum: number;
  completed_time_sum: number;
}

/** Every tutorial's figures from its progress records, and from the totals migration 0019 keeps. */
async function figures() {
  const fromRecords = await sql<Figures>`select tutorial_id, count(completed_at)::int as completions, count(rating)::int as ratings,
      coalesce(sum(rating), 0)::int as rating_sum, coalesce(sum(time_spent) filter (where completed_at is not null), 0)::int as completed_time_sum
    from tutorial_progress group by tutorial_id having count(completed_at) + count(rating) > 0 order by tutorial_id`.execute(t.db);
  const kept = await sql<Figures>`select tutorial_id, sum(completions)::int as completions, sum(ratings)::int as ratings,
      sum(rating_sum)::int as rating_sum, sum(completed_time_sum)::int as completed_time_sum
    from tutorial_statistics group by tutorial_id having sum(completions) + sum(ratings) > 0 order by tutorial_id`.execute(t.db);
  return { fromRecords: fromRecords.rows, kept: kept.rows };
}

describe('tutorial statistics kept per tutorial (append-only, folded)', () => {
  it('equal the progress records after completions, a changed rating and a deleted record, before and after a fold', async () => {
    const tutorial = await createTutorial(t);
    await viewAllChapters(t, 'agent', tutorial, 300);
    const done = await t.call('completeTutorial', {
      token: await t.token('agent'),
      params: { id: tutorial.id },
      body: { timeSpent: 0, rating: 2 },
    });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    await viewAllChapters(t, 'agent2', tutorial, 300);
    const again = await t.call('completeTutorial', {
      token: await t.token('agent2'),
      params: { id: tutorial.id },
      body: { timeSpent: 0, rating: 5 },
    });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    // Writers append; a record whose rating changes adds one row, and one whose completion is undone another.
    await t.db.updateTable('tutorial_progress').set({ rating: 4 }).where('tutorial_id', '=', tutorial.id).where('rating', '=', 2).execute();
    let now = await figures();
    expect(now.kept).toEqual(now.fromRecords);
    expect(now.kept.find((f) => f.tutorial_id === tutorial.id)).toEqual({
      tutorial_id: tutorial.id,
      completions: 2,
      ratings: 2,
      rating_sum: 9,
      completed_time_sum: 1200,
    });
    const list = await t.call('listAdminTutorials', { token: await t.token('admin'), query: { sortBy: 'averageRating', limit: 50 } });
    const item = (
      list.body.result.data as Array<{ id: number; statistics: { averageRating: number | null; completionsCount: number } }>
    ).find((i) => i.id === tutorial.id);
    expect(item?.statistics).toMatchObject({ averageRating: 4.5, completionsCount: 2 });

    await foldStatistics(t.db);
    const pending = await sql<{ n: number }>`select count(*)::int as n from tutorial_statistics_delta`.execute(t.db);
    expect(pending.rows[0]?.n).toBe(0);
    now = await figures();
    expect(now.kept).toEqual(now.fromRecords);

    await t.db.deleteFrom('tutorial_progress').where('tutorial_id', '=', tutorial.id).where('rating', '=', 5).execute();
    now = await figures();
    expect(now.kept.find((f) => f.tutorial_id === tutorial.id)).toMatchObject({ completions: 1, ratings: 1, rating_sum: 4 });
    expect(now.kept).toEqual(now.fromRecords);
  });
});
