import { ListError } from '../../lib/errors.js';
import type { ModuleHandlers } from '../../http/handlers.js';
import { COUNT_CAP, pageMeta } from '../../lib/paging.js';
import { toAuditEntry } from './mappers.js';
import { auditList, countEntries } from './repository.js';

/** The cursor of the list: the id of the last entry of the page, in base64url. */
const encodeCursor = (id: number) => Buffer.from(`a:${id}`).toString('base64url');
function decodeCursor(cursor: string): number {
  const match = /^a:(\d{1,18})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match) throw new ListError(400, 'Validation failed', ['querystring/cursor is not a cursor of this list']);
  return Number(match[1]);
}

export const auditHandlers: ModuleHandlers<'listAuditLog'> = {
  async listAuditLog(req) {
    const { page = 1, limit = 10, cursor, ...filters } = req.query;
    if (filters.startDate !== undefined && filters.endDate !== undefined && new Date(filters.startDate) > new Date(filters.endDate)) {
      throw new ListError(400, 'Validation failed', ['querystring/startDate must not be after endDate']);
    }
    if (filters.resourceId !== undefined && filters.resourceType === undefined) {
      throw new ListError(400, 'Validation failed', ['querystring/resourceId requires resourceType']);
    }
    if (cursor === undefined && (page - 1) * limit > 10_000) {
      throw new ListError(400, 'Validation failed', ['querystring/page reaches beyond offset 10000: follow meta.next_cursor instead']);
    }
    const { db } = req.server;
    const before = cursor === undefined ? undefined : decodeCursor(cursor);
    const rows = await auditList(db, filters, before)
      .limit(limit + 1)
      .offset(cursor === undefined ? (page - 1) * limit : 0)
      .execute();
    const more = rows.length > limit;
    const data = rows.slice(0, limit);
    // Counted up to COUNT_CAP + 1 matches, on the whole filtered log (not from the cursor on).
    const total = await countEntries(db, filters, COUNT_CAP);
    const meta = pageMeta(total, page, limit, {
      exact: total <= COUNT_CAP,
      nextCursor: more ? encodeCursor(Number(data[data.length - 1]!.id)) : null,
    });
    return { message: 'Audit log retrieved', result: { data: data.map(toAuditEntry), meta } };
  },
};
