import { emitEvent } from '../events/emit-repository.js';
import type { components } from '@transport-ops/contract';
import type { Kysely } from 'kysely';
import type { AnnouncementUpdate, Database } from '../../db/schema.js';
import { AppError, ListError } from '../../lib/errors.js';
import type { ModuleHandlers } from '../../http/handlers.js';
import { pageMeta } from '../../lib/paging.js';
import { caller } from '../../lib/identity.js';
import { audit, type AuditSource } from '../../lib/audit.js';
import {
  announcementCategoryExists,
  archive,
  deleteAnnouncement,
  findState,
  insertAnnouncement,
  listAll,
  missingTags,
  publish,
  unknownCountryCodes,
  unknownRoleCodes,
  updateAnnouncement,
} from './admin-repository.js';
import { invalidateAnnouncementCaches } from './cache.js';
import { auditedFields, reportedStatus, toAdmin, toAdminListItem } from './mappers.js';
import { findAnnouncement } from './repository.js';
import { announcementNotFound } from './rules.js';
import { stateMachine } from '../../lib/state-machine.js';
import type { AccessLevel } from '../../lib/identity.js';
import type { ModuleRepresentations } from '../../http/write-safety/representations.js';

type S = components['schemas'];

type Status = S['AnnouncementStatus'];
const MODERATORS = ['supervisor', 'admin', 'super_admin'] as const;
const move = (from: Status, to: 'PUBLISHED' | 'ARCHIVED') => ({ from, action: to, to, roles: MODERATORS });

/** Where each reported status may go (publish and archive); the action is the target status. */
const ANNOUNCEMENT_WORKFLOW = stateMachine<Status, Status, AccessLevel>([
  move('DRAFT', 'PUBLISHED'),
  move('DRAFT', 'ARCHIVED'),
  move('PUBLISHED', 'ARCHIVED'),
  move('EXPIRED', 'ARCHIVED'),
  move('ARCHIVED', 'PUBLISHED'),
]);

interface WriteRules {
  categoryId?: number;
  tagIds?: number[];
  targeting?: S['AnnouncementTargetingInput'];
  expiresAt?: string | null;
}

/** The rules of create and update the schema cannot state: 400 first, then the 404s of the references. */
async function checkWriteRules(db: Kysely<Database>, body: WriteRules, now: Date): Promise<void> {
  const errors: string[] = [];
  if (body.expiresAt != null && new Date(body.expiresAt) <= now) errors.push('body/expiresAt must be in the future');
  if (body.targeting !== undefined) {
    const { userTypes = [], regions = [], isGlobal } = body.targeting;
    if (!isGlobal && userTypes.length === 0 && regions.length === 0) {
      errors.push('body/targeting must name at least one user type or region when isGlobal is false');
    }
    const [roles, countries] = [await unknownRoleCodes(db, userTypes), await unknownCountryCodes(db, regions)];
    if (roles.length > 0) errors.push(`body/targeting.userTypes has unknown role codes: ${roles.join(', ')}`);
    if (countries.length > 0) errors.push(`body/targeting.regions has unknown country codes: ${countries.join(', ')}`);
  }
  if (errors.length > 0) throw new ListError(400, 'Validation failed', errors);
  if (body.categoryId !== undefined && !(await announcementCategoryExists(db, body.categoryId))) {
    throw new AppError('CATEGORY_NOT_FOUND', { categoryId: body.categoryId }, 'Category not found');
  }
  if (body.tagIds !== undefined) {
    const missing = await missingTags(db, body.tagIds);
    if (missing.length > 0) throw new AppError('TAG_NOT_FOUND', { tagIds: missing }, 'Tag not found');
  }
}

/** Attachments are numbered from 1 in the order given. */
const numbered = (attachments: S['AttachmentInput'][]) => JSON.stringify(attachments.map((a, i) => ({ id: i + 1, ...a })));

function targetingValues(t: S['AnnouncementTargetingInput']): AnnouncementUpdate {
  return { target_user_types: t.userTypes ?? [], target_regions: t.regions ?? [], is_global: t.isGlobal };
}

async function adminView(db: Kysely<Database>, id: number, now: Date): Promise<S['Announcement']> {
  const row = await findAnnouncement(db, id);
  if (!row) throw announcementNotFound(id);
  return toAdmin(row, now);
}

function invalidTransition(id: number, currentStatus: S['AnnouncementStatus'], requested: 'PUBLISHED' | 'ARCHIVED') {
  const verb = requested === 'PUBLISHED' ? 'published' : 'archived';
  return new AppError(
    'INVALID_STATUS_TRANSITION',
    { currentStatus, requested, allowed: ANNOUNCEMENT_WORKFLOW.targets(currentStatus) },
    currentStatus === requested
      ? `Announcement ${id} is already ${currentStatus}`
      : `Announcement ${id} cannot be ${verb} while ${currentStatus}`,
  );
}

// The guarded UPDATE either applies or matches nothing; only then is the row read, to say why.
// A miss on a row that looks movable means a concurrent move came first: try again.
/** Publishes and emits `announcement.published` with the announcement as published, in one transaction. */
function publishOne(db: Kysely<Database>, id: number, now: Date, req: AuditSource): Promise<void> {
  return db.transaction().execute(async (trx) => {
    const state = await findState(trx, id);
    await publishIn(trx, id, now);
    await emitEvent(trx, 'announcement.published', { type: 'announcement', id }, await adminView(trx, id, now));
    await audit(trx, req, statusChange(id, state && reportedStatus(state, now), 'PUBLISHED'));
  });
}

const statusChange = (id: number, from: Status | undefined, to: 'PUBLISHED' | 'ARCHIVED') => ({
  action: to === 'PUBLISHED' ? 'announcement.published' : 'announcement.archived',
  resource: { type: 'announcement', id },
  before: { status: from ?? null },
  after: { status: to },
});

async function publishIn(db: Kysely<Database>, id: number, now: Date): Promise<void> {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    if (await publish(db, id, now)) return;
    const state = await findState(db, id);
    if (!state) throw announcementNotFound(id);
    const status = reportedStatus(state, now);
    if (!ANNOUNCEMENT_WORKFLOW.targets(status).includes('PUBLISHED')) throw invalidTransition(id, status, 'PUBLISHED');
    if (state.expires_at !== null && new Date(state.expires_at) <= now) {
      throw new AppError(
        'ANNOUNCEMENT_EXPIRED',
        { announcementId: id, expiresAt: new Date(state.expires_at).toISOString() },
        `Announcement ${id} has expired; change expiresAt before publishing`,
      );
    }
  }
  throw invalidTransition(id, 'PUBLISHED', 'PUBLISHED');
}

function archiveOne(db: Kysely<Database>, id: number, now: Date, req: AuditSource): Promise<void> {
  return db.transaction().execute(async (trx) => {
    const before = await findState(trx, id);
    if (before && (await archive(trx, id, now))) return audit(trx, req, statusChange(id, reportedStatus(before, now), 'ARCHIVED'));
    const state = await findState(trx, id);
    if (!state) throw announcementNotFound(id);
    throw invalidTransition(id, reportedStatus(state, now), 'ARCHIVED');
  });
}

function deleteOne(db: Kysely<Database>, id: number, req: AuditSource): Promise<void> {
  return db.transaction().execute(async (trx) => {
    const row = await findAnnouncement(trx, id);
    if (!row || !(await deleteAnnouncement(trx, id))) throw announcementNotFound(id);
    await audit(trx, req, {
      action: 'announcement.deleted',
      resource: { type: 'announcement', id },
      before: auditedFields(toAdmin(row, new Date())),
    });
  });
}

export type AdminOperations =
  | 'listAdminAnnouncements'
  | 'createAnnouncement'
  | 'getAdminAnnouncementById'
  | 'updateAnnouncement'
  | 'deleteAnnouncement'
  | 'publishAnnouncement'
  | 'archiveAnnouncement'
  | 'bulkActionAnnouncements';

export const adminAnnouncementHandlers: ModuleHandlers<AdminOperations> = {
  async listAdminAnnouncements(req) {
    const q = req.query;
    const query = Object.assign({}, q, {
      page: q.page ?? 1,
      limit: q.limit ?? 10,
      sortBy: q.sortBy ?? 'createdAt',
      sortOrder: q.sortOrder ?? 'DESC',
    });
    const now = new Date();
    const { rows, total, exact } = await listAll(req.server.db, now, query);
    return {
      message: 'Announcements retrieved successfully',
      result: {
        data: rows.map((r) => toAdminListItem(r, now)),
        meta: Object.assign({}, pageMeta(total, query.page, query.limit), { total_is_exact: exact }),
      },
    };
  },

  async createAnnouncement(req) {
    const auth = caller(req);
    const { db } = req.server;
    const body = req.body;
    const now = new Date();
    await checkWriteRules(db, body, now);
    const status = body.status ?? 'DRAFT';
    const id = await db.transaction().execute(async (trx) => {
      const created = await insertAnnouncement(
        trx,
        {
          title: body.title,
          summary: body.summary ?? null,
          content: body.content,
          status,
          priority: body.priority ?? 'MEDIUM',
          category_id: body.categoryId,
          featured_image: body.featuredImage == null ? null : JSON.stringify(body.featuredImage),
          attachments: numbered(body.attachments ?? []),
          author_id: auth.userId,
          ...targetingValues(body.targeting ?? { userTypes: [], regions: [], isGlobal: true }),
          published_at: status === 'PUBLISHED' ? now : null,
          expires_at: body.expiresAt == null ? null : new Date(body.expiresAt),
          created_at: now,
          updated_at: now,
        },
        body.tagIds ?? [],
      );
      await audit(trx, req, {
        action: 'announcement.created',
        resource: { type: 'announcement', id: created },
        after: auditedFields(await adminView(trx, created, now)),
      });
      return created;
    });
    await invalidateAnnouncementCaches(req.server);
    return { message: 'Announcement created successfully', result: await adminView(db, id, now) };
  },

  async getAdminAnnouncementById(req) {
    return {
      message: 'Announcement retrieved successfully',
      result: await adminAnnouncementRepresentations.getAdminAnnouncementById.read(req),
    };
  },

  async updateAnnouncement(req) {
    const { db } = req.server;
    const { id } = req.params;
    const body = req.body;
    const now = new Date();
    if (!(await findState(db, id))) throw announcementNotFound(id);
    await checkWriteRules(db, body, now);
    const values: AnnouncementUpdate = { updated_at: now };
    if (body.title !== undefined) values.title = body.title;
    if (body.summary !== undefined) values.summary = body.summary;
    if (body.content !== undefined) values.content = body.content;
    if (body.priority !== undefined) values.priority = body.priority;
    if (body.categoryId !== undefined) values.category_id = body.categoryId;
    if (body.featuredImage !== undefined) values.featured_image = body.featuredImage === null ? null : JSON.stringify(body.featuredImage);
    if (body.attachments !== undefined) values.attachments = numbered(body.attachments);
    if (body.targeting !== undefined) Object.assign(values, targetingValues(body.targeting));
    if (body.expiresAt !== undefined) values.expires_at = body.expiresAt === null ? null : new Date(body.expiresAt);
    const updated = await db.transaction().execute(async (trx) => {
      const before = await findAnnouncement(trx, id);
      if (!before || !(await updateAnnouncement(trx, id, values, body.tagIds))) return false;
      const after = auditedFields(await adminView(trx, id, now));
      await audit(trx, req, {
        action: 'announcement.updated',
        resource: { type: 'announcement', id },
        before: auditedFields(toAdmin(before, now)),
        after,
      });
      return true;
    });
    if (!updated) throw announcementNotFound(id);
    await invalidateAnnouncementCaches(req.server);
    return { message: 'Announcement updated successfully', result: await adminView(db, id, now) };
  },

  async deleteAnnouncement(req) {
    await deleteOne(req.server.db, req.params.id, req);
    await invalidateAnnouncementCaches(req.server);
    return { message: 'Announcement deleted successfully', result: null };
  },

  async publishAnnouncement(req) {
    const now = new Date();
    await publishOne(req.server.db, req.params.id, now, req);
    await invalidateAnnouncementCaches(req.server);
    return { message: 'Announcement published successfully', result: await adminView(req.server.db, req.params.id, now) };
  },

  async archiveAnnouncement(req) {
    const now = new Date();
    await archiveOne(req.server.db, req.params.id, now, req);
    await invalidateAnnouncementCaches(req.server);
    return { message: 'Announcement archived successfully', result: await adminView(req.server.db, req.params.id, now) };
  },

  async bulkActionAnnouncements(req) {
    const { db } = req.server;
    const { action, ids } = req.body;
    const processed: number[] = [];
    const failed: { id: number; code: string; message: string }[] = [];
    for (const id of ids) {
      try {
        const now = new Date();
        if (action === 'PUBLISH') await publishOne(db, id, now, req);
        else if (action === 'ARCHIVE') await archiveOne(db, id, now, req);
        else await deleteOne(db, id, req);
        processed.push(id);
      } catch (error) {
        if (!(error instanceof AppError)) {
          req.log.error({ err: error, announcementId: id }, 'bulk action failed for one announcement');
          failed.push({ id, code: 'INTERNAL_ERROR', message: `Announcement ${id} could not be processed` });
        } else {
          const message = error.detail.code === 'ANNOUNCEMENT_NOT_FOUND' ? `Announcement ${id} not found` : error.message;
          failed.push({ id, code: error.detail.code, message });
        }
      }
    }
    if (processed.length > 0) await invalidateAnnouncementCaches(req.server);
    return { message: 'Bulk action completed', result: { action, processed, failed } };
  },
};

/** The announcement as its administration GET answers it (write-safety/representations.ts). */
export const adminAnnouncementRepresentations: ModuleRepresentations<'getAdminAnnouncementById'> = {
  getAdminAnnouncementById: {
    row: { table: 'announcements', id: (req) => req.params.id },
    async read(req) {
      return adminView(req.server.db, req.params.id, new Date());
    },
  },
};
