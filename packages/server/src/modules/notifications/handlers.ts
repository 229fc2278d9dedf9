import type { ModuleHandlers } from '../../http/handlers.js';
import { fetchPage, pageMeta } from '../../lib/paging.js';
import { toNotification } from './mappers.js';
import { listQuery } from './repository.js';

export const notificationHandlers: ModuleHandlers<'listNotifications'> = {
  async listNotifications(req) {
    const { page = 1, limit = 10, ...filters } = req.query;
    const { rows, total } = await fetchPage(listQuery(filters), page, limit, req.server.db);
    return { message: 'Notifications retrieved', result: { data: rows.map(toNotification), meta: pageMeta(total, page, limit) } };
  },
};
