import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { StoredBytes } from '../../lib/file-store.js';

type Db = Kysely<Database>;

export interface NewAttachment {
  filename: string;
  mime_type: string;
  size: number;
  /** Where the bytes were stored (see lib/file-store.ts). */
  stored: StoredBytes;
}

/** Stores files for a complaint, or as pending uploads of `userId` when `complaintId` is null. */
export async function storeAttachments(trx: Db, complaintId: number | null, userId: number, files: NewAttachment[]) {
  return trx
    .insertInto('complaint_attachments')
    .values(
      files.map((f) => ({
        complaint_id: complaintId,
        uploaded_by: userId,
        filename: f.filename,
        mime_type: f.mime_type,
        size: f.size,
        ...f.stored,
      })),
    )
    .returning(['id', 'filename', 'mime_type', 'size'])
    .execute();
}

/** The complaint an upload goes to, locked until the files are stored (a concurrent close or delete waits). */
export const lockComplaint = (trx: Db, id: number, scope: Expression<SqlBool>) =>
  trx.selectFrom('complaints as c').select(['c.id', 'c.status']).where('c.id', '=', id).where(scope).forUpdate().executeTakeFirst();

/**
 * An attachment the caller may download: one of a complaint they can read (`readable`, on alias
 * `c`), or a pending upload of their own.
 */
export const findDownload = (db: Db, id: number, userId: number, readable: Expression<SqlBool>) =>
  db
    .selectFrom('complaint_attachments as a')
    .leftJoin('complaints as c', 'c.id', 'a.complaint_id')
    .select(['a.id', 'a.filename', 'a.mime_type', 'a.size', 'a.storage_key'])
    .where('a.id', '=', id)
    .where(sql<SqlBool>`((a.complaint_id is not null and ${readable}) or (a.complaint_id is null and a.uploaded_by = ${userId}))`)
    .executeTakeFirst();

/** Links pending attachments of `userId` to a complaint; returns the ids linked. */
export async function linkAttachments(trx: Db, complaintId: number, userId: number, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await trx
    .updateTable('complaint_attachments')
    .set({ complaint_id: complaintId })
    .where('id', 'in', ids)
    .where('uploaded_by', '=', userId)
    .where('complaint_id', 'is', null)
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

/**
 * Deletes up to `limit` attachments never linked to a complaint and uploaded before `before`;
 * returns how many. The database queues their files for the file store (migration 0006). An upload
 * linked meanwhile is kept: the conditions are checked again on the row the delete finally sees.
 */
export async function deleteUnlinkedAttachments(db: Db, before: Date, limit: number): Promise<number> {
  const rows = await db
    .deleteFrom('complaint_attachments')
    .where('complaint_id', 'is', null)
    .where('created_at', '<', before)
    .where(
      'id',
      'in',
      db
        .selectFrom('complaint_attachments')
        .select('id')
        .where('complaint_id', 'is', null)
        .where('created_at', '<', before)
        .orderBy('created_at')
        .limit(limit),
    )
    .returning('id')
    .execute();
  return rows.length;
}

export const attachmentUrl = (id: number) => `/trade/complaints/attachments/${id}`;
