import { AppError, ListError, notFound } from '../../lib/errors.js';
import type { ModuleHandlers } from '../../http/handlers.js';
import { COUNT_CAP, pageMeta } from '../../lib/paging.js';
import { requeue } from '../webhooks/repository.js';
import { toDelivery } from '../webhooks/mappers.js';
import { toEvent } from './mappers.js';
import { countEvents, eventList, findEvent, redeliveryTargets } from './repository.js';

export type EventOps = 'listEvents' | 'getEvent' | 'redeliverEvent';

const eventNotFound = (eventId: string) => new AppError('EVENT_NOT_FOUND', { eventId }, 'Event not found');

/** The cursor of the events list: the internal id of the last event of the page, in base64url. */
const encodeCursor = (id: number) => Buffer.from(`e:${id}`).toString('base64url');
function decodeCursor(cursor: string): number {
  const match = /^e:(\d{1,18})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match) throw new ListError(400, 'Validation failed', ['querystring/cursor is not a cursor of this list']);
  return Number(match[1]);
}

export const eventHandlers: ModuleHandlers<EventOps> = {
  async listEvents(req) {
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
    const query = eventList(db, filters, before);
    const rows = await query
      .limit(limit + 1)
      .offset(cursor === undefined ? (page - 1) * limit : 0)
      .execute();
    const more = rows.length > limit;
    const data = rows.slice(0, limit);
    // Counted up to COUNT_CAP + 1 matches, on the whole filtered log (not from the cursor on).
    const total = await countEvents(db, filters, COUNT_CAP);
    const meta = pageMeta(total, page, limit, {
      exact: total <= COUNT_CAP,
      nextCursor: more ? encodeCursor(data[data.length - 1]!.id) : null,
    });
    return { message: 'Events retrieved', result: { data: data.map(toEvent), meta } };
  },

  async getEvent(req) {
    const row = await findEvent(req.server.db, req.params.id);
    if (!row) throw eventNotFound(req.params.id);
    return { message: 'Event retrieved', result: toEvent(row) };
  },

  async redeliverEvent(req) {
    const { db } = req.server;
    const event = await findEvent(db, req.params.id);
    if (!event) throw eventNotFound(req.params.id);
    const subscriptionId = req.body?.subscriptionId;
    const targets = await redeliveryTargets(db, event.type, subscriptionId);
    if (subscriptionId !== undefined && targets.length === 0) throw notFound.resource('webhook', subscriptionId);
    const deliveries = await requeue(db, event.id, targets);
    const n = deliveries.length;
    return { message: `Event queued for ${n} endpoint${n === 1 ? '' : 's'}`, result: deliveries.map(toDelivery) };
  },
};
