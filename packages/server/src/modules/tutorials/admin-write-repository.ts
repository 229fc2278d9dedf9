import type { components } from '@transport-ops/contract';
import { sql } from 'kysely';
import type { Difficulty, TutorialStatus } from '../../db/schema.js';
import type { Db } from './query-repository.js';

type S = components['schemas'];

export type ChapterInput = S['TutorialChapterInput'];
export type AttachmentInput = S['AttachmentInput'];

export const attachmentsJson = (attachments: AttachmentInput[]) =>
  JSON.stringify(attachments.map((a, i) => ({ id: i + 1, ...a, description: a.description ?? null })));

/** Inserts the chapters in the order given (positions 1, 2, ...). */
export async function insertChapters(trx: Db, tutorialId: number, chapters: ChapterInput[]): Promise<void> {
  await trx
    .insertInto('tutorial_chapters')
    .values(
      chapters.map((c, i) => ({
        tutorial_id: tutorialId,
        position: i + 1,
        title: c.title,
        start_time: c.startTime,
        duration: c.duration,
        description: c.description ?? null,
      })),
    )
    .execute();
}

/**
 * Replaces every chapter. The removed ids leave every user's viewed chapters (the current chapter
 * is cleared by the foreign key); completions and certificates stay.
 */
export async function replaceChapters(trx: Db, tutorialId: number, chapters: ChapterInput[]): Promise<void> {
  await trx.deleteFrom('tutorial_chapters').where('tutorial_id', '=', tutorialId).execute();
  await insertChapters(trx, tutorialId, chapters);
  await trx
    .updateTable('tutorial_progress as p')
    .set({
      viewed_chapter_ids: sql<number[]>`array(select v from unnest(p.viewed_chapter_ids) as v
        where v in (select ch.id from tutorial_chapters ch where ch.tutorial_id = p.tutorial_id))`,
    })
    .where('p.tutorial_id', '=', tutorialId)
    .execute();
}

export async function replaceTags(trx: Db, tutorialId: number, tagIds: number[], replace: boolean): Promise<void> {
  if (replace) await trx.deleteFrom('tutorial_tags').where('tutorial_id', '=', tutorialId).execute();
  if (tagIds.length === 0) return;
  await trx
    .insertInto('tutorial_tags')
    .values(tagIds.map((tag_id) => ({ tutorial_id: tutorialId, tag_id })))
    .execute();
}

export async function replacePrerequisites(trx: Db, tutorialId: number, ids: number[], replace: boolean): Promise<void> {
  if (replace) await trx.deleteFrom('tutorial_prerequisites').where('tutorial_id', '=', tutorialId).execute();
  if (ids.length === 0) return;
  await trx
    .insertInto('tutorial_prerequisites')
    .values(ids.map((prerequisite_id) => ({ tutorial_id: tutorialId, prerequisite_id })))
    .execute();
}

/** The tutorial row, locked for update until the end of the transaction; false when absent. */
export async function lockTutorial(trx: Db, id: number): Promise<boolean> {
  const row = await trx.selectFrom('tutorials').select('id').where('id', '=', id).forUpdate().executeTakeFirst();
  return row !== undefined;
}

export interface TutorialFields {
  title?: string;
  description?: string;
  summary?: string | null;
  content?: string;
  difficulty?: Difficulty;
  estimatedTime?: number;
  categoryId?: number;
  thumbnail?: S['MediaImageInput'] | null;
  video?: S['TutorialVideoInput'] | null;
  attachments?: AttachmentInput[];
  status?: TutorialStatus;
}

/** Column values of the fields given (undefined ones are left out by Kysely); media and attachments as JSON text. */
function columns(f: TutorialFields) {
  const json = (value: object | null | undefined) => (value === undefined ? undefined : value === null ? null : JSON.stringify(value));
  return {
    title: f.title,
    description: f.description,
    summary: f.summary,
    content: f.content,
    difficulty: f.difficulty,
    estimated_time: f.estimatedTime,
    category_id: f.categoryId,
    thumbnail: json(f.thumbnail),
    video: json(f.video),
    attachments: f.attachments === undefined ? undefined : attachmentsJson(f.attachments),
    status: f.status,
  };
}

export async function insertTutorial(
  trx: Db,
  f: TutorialFields & Required<Pick<TutorialFields, 'title' | 'description' | 'content' | 'difficulty' | 'estimatedTime' | 'categoryId'>>,
  authorId: number,
): Promise<number> {
  const row = await trx
    .insertInto('tutorials')
    .values(
      Object.assign({}, columns(f), {
        title: f.title,
        difficulty: f.difficulty,
        estimated_time: f.estimatedTime,
        summary: f.summary ?? null,
        attachments: attachmentsJson(f.attachments ?? []),
        status: f.status ?? 'DRAFT',
        author_id: authorId,
      }),
    )
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function updateTutorialRow(trx: Db, id: number, f: TutorialFields): Promise<void> {
  await trx
    .updateTable('tutorials')
    .set(Object.assign({}, columns(f), { updated_at: new Date() }))
    .where('id', '=', id)
    .execute();
}

/** Deletes the tutorial; chapters, tags, prerequisites and every user's progress and certificate go with it. */
export async function deleteTutorialRow(trx: Db, id: number): Promise<void> {
  await trx.deleteFrom('tutorials').where('id', '=', id).execute();
}
