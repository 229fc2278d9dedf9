import { sql } from 'kysely';
import { AppError } from '../../lib/errors.js';
import type { Result } from '../../http/handlers.js';
import { isUniqueViolation } from '../../lib/db-errors.js';
import { iso } from '../../lib/time.js';
import { newCertificateCode } from './certificate.js';
import { tutorialNotFound } from './rules.js';
import { chaptersCount, type Db, percentage, viewedCount } from './query-repository.js';

/**
 * The published tutorial, share-locked until the end of the transaction: an administrator's
 * update (chapters replaced, back to draft) waits for the progress write, or the reverse.
 */
async function lockPublished(trx: Db, tutorialId: number) {
  const tutorial = await trx
    .selectFrom('tutorials')
    .select(['id', 'title', 'estimated_time'])
    .where('id', '=', tutorialId)
    .where('status', '=', 'PUBLISHED')
    .forShare()
    .executeTakeFirst();
  if (!tutorial) throw tutorialNotFound(tutorialId);
  return tutorial;
}

export interface ProgressReport {
  chapterId: number;
  timeSpent: number;
  currentPosition?: number;
}

/** Records a chapter as viewed (once) and adds the time spent; the first report creates the record. */
export async function recordProgress(
  trx: Db,
  tutorialId: number,
  userId: number,
  report: ProgressReport,
): Promise<Result<'recordTutorialProgress'>> {
  await lockPublished(trx, tutorialId);
  const chapter = await trx
    .selectFrom('tutorial_chapters')
    .select(['id', 'title'])
    .where('id', '=', report.chapterId)
    .where('tutorial_id', '=', tutorialId)
    .executeTakeFirst();
  if (!chapter) {
    throw new AppError('CHAPTER_NOT_FOUND', { tutorialId, chapterId: report.chapterId }, 'Chapter not found in this tutorial');
  }
  const { chapterId } = report;
  const saved = await trx
    .insertInto('tutorial_progress')
    .values({
      tutorial_id: tutorialId,
      user_id: userId,
      viewed_chapter_ids: sql<number[]>`array[${chapterId}::int]`,
      time_spent: report.timeSpent,
      current_chapter_id: chapterId,
      current_position: report.currentPosition ?? 0,
      last_viewed_at: sql`now()`,
    })
    .onConflict((oc) =>
      oc.columns(['tutorial_id', 'user_id']).doUpdateSet({
        viewed_chapter_ids: sql<number[]>`case
          when ${chapterId}::int = any(tutorial_progress.viewed_chapter_ids) then tutorial_progress.viewed_chapter_ids
          else array_append(tutorial_progress.viewed_chapter_ids, ${chapterId}::int) end`,
        time_spent: sql<number>`tutorial_progress.time_spent + excluded.time_spent`,
        current_chapter_id: sql<number>`excluded.current_chapter_id`,
        current_position:
          report.currentPosition === undefined ? sql<number>`tutorial_progress.current_position` : sql<number>`excluded.current_position`,
        last_viewed_at: sql`excluded.last_viewed_at`,
      }),
    )
    .returning(['time_spent', 'last_viewed_at'])
    .executeTakeFirstOrThrow();
  const counts = await progressCounts(trx, tutorialId, userId);
  return {
    tutorialId,
    userId,
    completionPercentage: percentage(counts?.viewed_count ?? 0, counts?.chapters_count ?? 0),
    currentChapter: { id: chapter.id, title: chapter.title },
    timeSpent: saved.time_spent,
    lastViewedAt: iso(saved.last_viewed_at),
  };
}

/** The user's progress record with its viewed and total chapter counts, row-locked when `lock`. */
function progressCounts(trx: Db, tutorialId: number, userId: number, lock = false) {
  let query = trx
    .selectFrom('tutorial_progress as p')
    .innerJoin('tutorials as t', 't.id', 'p.tutorial_id')
    .select(['p.time_spent', 'p.completed_at', chaptersCount.as('chapters_count'), viewedCount.as('viewed_count')])
    .where('p.tutorial_id', '=', tutorialId)
    .where('p.user_id', '=', userId);
  if (lock) query = query.forUpdate('p');
  return query.executeTakeFirst();
}

export interface Completion {
  timeSpent: number;
  rating?: number;
  comment?: string;
}

/**
 * Completes a published tutorial for the user and issues the certificate, checking in the
 * contract's order. The progress row is locked and the final update only applies while
 * `completed_at` is null, so of two simultaneous completions exactly one succeeds.
 */
export async function completeTutorial(trx: Db, tutorialId: number, userId: number, body: Completion): Promise<Result<'completeTutorial'>> {
  const tutorial = await lockPublished(trx, tutorialId);
  const progress = await progressCounts(trx, tutorialId, userId, true);
  if (progress?.completed_at) throw alreadyCompleted(progress.completed_at);

  const missing = await trx
    .selectFrom('tutorial_prerequisites as tp')
    .innerJoin('tutorials as pt', 'pt.id', 'tp.prerequisite_id')
    .select(['pt.id', 'pt.title'])
    .where('tp.tutorial_id', '=', tutorialId)
    .where('pt.status', '=', 'PUBLISHED')
    .where(
      sql<boolean>`not exists (select 1 from tutorial_progress cp
        where cp.tutorial_id = pt.id and cp.user_id = ${userId} and cp.completed_at is not null)`,
    )
    .orderBy('pt.id')
    .execute();
  if (missing.length > 0) throw new AppError('PREREQUISITES_NOT_MET', { missing }, 'Prerequisites not met');

  const completionPercentage = percentage(progress?.viewed_count ?? 0, progress?.chapters_count ?? 0);
  const timeSpent = (progress?.time_spent ?? 0) + body.timeSpent;
  const requiredTimeSpent = tutorial.estimated_time * 48; // 80 % of the estimated minutes, in seconds
  if (!progress || completionPercentage < 100 || timeSpent < requiredTimeSpent) {
    throw new AppError(
      'COMPLETION_CRITERIA_NOT_MET',
      { completionPercentage, timeSpent, requiredTimeSpent },
      'Completion criteria not met: view every chapter and spend at least 80% of the estimated time',
    );
  }

  const done = await issueCertificate(trx, tutorialId, userId, body);
  if (!done) throw alreadyCompleted(await completedAt(trx, tutorialId, userId));
  return {
    tutorialId,
    userId,
    completedAt: iso(done.completed_at!),
    timeSpent: done.time_spent,
    rating: done.rating,
    comment: done.comment,
    certificateUrl: `/trade/tutorials/${tutorialId}/certificate`,
    certificateCode: done.certificate_code!,
  };
}

const alreadyCompleted = (at: Date) => new AppError('ALREADY_COMPLETED', { completedAt: iso(at) }, 'Tutorial already completed');

async function completedAt(trx: Db, tutorialId: number, userId: number): Promise<Date> {
  const row = await trx
    .selectFrom('tutorial_progress')
    .select('completed_at')
    .where('tutorial_id', '=', tutorialId)
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return row.completed_at!;
}

const CODE_ATTEMPTS = 5;

/**
 * Marks the completion with a new certificate code. A code already taken (unique violation) is
 * drawn again; the savepoint keeps the transaction usable after the failed attempt.
 */
async function issueCertificate(trx: Db, tutorialId: number, userId: number, body: Completion) {
  for (let attempt = 1; ; attempt++) {
    await sql`savepoint certificate_code`.execute(trx);
    try {
      const row = await trx
        .updateTable('tutorial_progress')
        .set({
          completed_at: sql`now()`,
          time_spent: sql<number>`time_spent + ${body.timeSpent}::int`,
          rating: body.rating ?? null,
          comment: body.comment ?? null,
          certificate_code: newCertificateCode(),
        })
        .where('tutorial_id', '=', tutorialId)
        .where('user_id', '=', userId)
        .where('completed_at', 'is', null)
        .returning(['completed_at', 'time_spent', 'rating', 'comment', 'certificate_code'])
        .executeTakeFirst();
      await sql`release savepoint certificate_code`.execute(trx);
      return row;
    } catch (error) {
      if (!isUniqueViolation(error, 'tutorial_progress_certificate_code_key') || attempt >= CODE_ATTEMPTS) throw error;
      await sql`rollback to savepoint certificate_code`.execute(trx);
    }
  }
}
