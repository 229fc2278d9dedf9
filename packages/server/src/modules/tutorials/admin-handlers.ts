import { AppError, ListError } from '../../lib/errors.js';
import type { ModuleHandlers } from '../../http/handlers.js';
import { pageMeta } from '../../lib/paging.js';
import { audit } from '../../lib/audit.js';
import { caller } from '../../lib/identity.js';
import {
  dependentsCount,
  findCycle,
  findTutorial,
  firstMissingTutorial,
  listAll,
  lockCategory,
  lockPrerequisiteGraph,
  missingTags,
} from './admin-repository.js';
import {
  type ChapterInput,
  deleteTutorialRow,
  insertChapters,
  insertTutorial,
  lockTutorial,
  replaceChapters,
  replacePrerequisites,
  replaceTags,
  updateTutorialRow,
} from './admin-write-repository.js';
import { auditedFields } from './mappers.js';
import { tutorialNotFound } from './rules.js';
import type { Db } from './query-repository.js';
import type { ModuleRepresentations } from '../../http/write-safety/representations.js';

/** 400 when a chapter starts before the previous one (the schema cannot compare items). */
function checkChapterOrder(chapters: ChapterInput[] | undefined): void {
  const errors: string[] = [];
  chapters?.forEach((c, i) => {
    const previous = chapters[i - 1];
    if (previous && c.startTime < previous.startTime) {
      errors.push(`body/chapters.${i}.startTime must not be lower than the previous chapter's startTime (${previous.startTime})`);
    }
  });
  if (errors.length > 0) throw new ListError(400, 'Validation failed', errors);
}

/** Category, tags and prerequisites named by a body must exist (and stay until the commit). */
async function checkReferences(
  trx: Db,
  refs: { categoryId?: number | undefined; tagIds?: number[] | undefined; prerequisiteIds?: number[] | undefined },
): Promise<void> {
  if (refs.categoryId !== undefined && !(await lockCategory(trx, refs.categoryId))) {
    throw new AppError('CATEGORY_NOT_FOUND', { categoryId: refs.categoryId }, 'Category not found');
  }
  const tags = await missingTags(trx, refs.tagIds ?? []);
  if (tags.length > 0) throw new AppError('TAG_NOT_FOUND', { tagIds: tags }, 'Tag not found');
  const prerequisite = await firstMissingTutorial(trx, refs.prerequisiteIds ?? []);
  if (prerequisite !== undefined) throw tutorialNotFound(prerequisite);
}

/** A 409 whose `errors` is a list of strings, as the contract answers a prerequisite cycle. */
function prerequisiteCycle(detail: string): ListError {
  return new ListError(409, 'Prerequisites would form a cycle', [`body/prerequisiteIds: ${detail}`]);
}

export const adminTutorialHandlers: ModuleHandlers<
  'listAdminTutorials' | 'createTutorial' | 'getAdminTutorialById' | 'updateTutorial' | 'deleteTutorial'
> = {
  async listAdminTutorials(req) {
    const q = req.query;
    const page = q.page ?? 1;
    const limit = q.limit ?? 10;
    const { data, total } = await listAll(
      req.server.db,
      Object.assign({}, q, { page, limit, sortBy: q.sortBy ?? 'createdAt', sortOrder: q.sortOrder ?? 'DESC' }),
    );
    return { message: 'Tutorials retrieved successfully', result: { data, meta: pageMeta(total, page, limit) } };
  },

  async createTutorial(req) {
    const auth = caller(req);
    const body = req.body;
    checkChapterOrder(body.chapters);
    const tutorial = await req.server.db.transaction().execute(async (trx) => {
      await checkReferences(trx, body);
      const id = await insertTutorial(trx, body, auth.userId);
      await insertChapters(trx, id, body.chapters);
      await replaceTags(trx, id, body.tagIds ?? [], false);
      await replacePrerequisites(trx, id, body.prerequisiteIds ?? [], false);
      const created = (await findTutorial(trx, id))!;
      await audit(trx, req, { action: 'tutorial.created', resource: { type: 'tutorial', id }, after: auditedFields(created) });
      return created;
    });
    return { message: 'Tutorial created successfully', result: tutorial! };
  },

  async getAdminTutorialById(req) {
    return { message: 'Tutorial retrieved successfully', result: await adminTutorialRepresentations.getAdminTutorialById.read(req) };
  },

  async updateTutorial(req) {
    const { id } = req.params;
    const body = req.body;
    checkChapterOrder(body.chapters);
    const tutorial = await req.server.db.transaction().execute(async (trx) => {
      // The graph lock comes before any row lock, so that two updates never wait on each other's rows.
      if (body.prerequisiteIds !== undefined) await lockPrerequisiteGraph(trx);
      if (!(await lockTutorial(trx, id))) throw tutorialNotFound(id);
      await checkReferences(trx, body);
      const before = (await findTutorial(trx, id))!;
      await updateTutorialRow(trx, id, body);
      if (body.prerequisiteIds !== undefined) {
        if (body.prerequisiteIds.includes(id)) throw prerequisiteCycle(`tutorial ${id} cannot require itself`);
        const path = await findCycle(trx, id, body.prerequisiteIds);
        if (path) {
          const [first] = path;
          const chain = path.join(' → ');
          throw prerequisiteCycle(`tutorial ${first} already requires tutorial ${id} (${chain}), so ${id} cannot require ${first}`);
        }
        await replacePrerequisites(trx, id, body.prerequisiteIds, true);
      }
      if (body.chapters !== undefined) await replaceChapters(trx, id, body.chapters);
      if (body.tagIds !== undefined) await replaceTags(trx, id, body.tagIds, true);
      const after = (await findTutorial(trx, id))!;
      await audit(trx, req, {
        action: 'tutorial.updated',
        resource: { type: 'tutorial', id },
        before: auditedFields(before),
        after: auditedFields(after),
      });
      return after;
    });
    return { message: 'Tutorial updated successfully', result: tutorial! };
  },

  async deleteTutorial(req) {
    const { id } = req.params;
    await req.server.db.transaction().execute(async (trx) => {
      await lockPrerequisiteGraph(trx);
      if (!(await lockTutorial(trx, id))) throw tutorialNotFound(id);
      const usageCount = await dependentsCount(trx, id);
      if (usageCount > 0) {
        throw new AppError('RESOURCE_IN_USE', { resource: 'tutorial', id, usageCount }, 'Tutorial is a prerequisite of other tutorials');
      }
      const before = (await findTutorial(trx, id))!;
      await deleteTutorialRow(trx, id);
      await audit(trx, req, { action: 'tutorial.deleted', resource: { type: 'tutorial', id }, before: auditedFields(before) });
    });
    return { message: 'Tutorial deleted successfully', result: null };
  },
};

/** The tutorial as its administration GET answers it (write-safety/representations.ts). */
export const adminTutorialRepresentations: ModuleRepresentations<'getAdminTutorialById'> = {
  getAdminTutorialById: {
    row: { table: 'tutorials', id: (req) => req.params.id },
    async read(req) {
      const tutorial = await findTutorial(req.server.db, req.params.id);
      if (!tutorial) throw tutorialNotFound(req.params.id);
      return tutorial;
    },
  },
};
