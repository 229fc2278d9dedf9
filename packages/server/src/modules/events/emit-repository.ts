import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { components } from '@transport-ops/contract';
import type { webhooks } from '@transport-ops/contract';
import type { Kysely } from 'kysely';
import type { Database, EventResourceType } from '../../db/schema.js';
import { liveEventOf } from '../live/events.js';
import { appendLiveEvents } from '../live/repository.js';

type Db = Kysely<Database>;

/** Every event type and the `data` its webhook carries, from the contract's `webhooks` section. */
export type EventData = {
  [K in keyof webhooks]: webhooks[K] extends { post: { requestBody: { content: { 'application/json': infer E } } } }
    ? E extends { data: infer D }
      ? D
      : never
    : never;
};
export type EventType = components['schemas']['EventType'] & keyof EventData;

export const newEventId = () => `evt_${randomBytes(12).toString('hex')}`;

/**
 * Records an event in the event log, and queues a delivery for every active webhook endpoint
 * subscribed to its type, in the caller's transaction: the event exists if and only if the
 * change commits (the outbox). One statement. The delivery workers pick the deliveries up (a
 * write answered by this instance wakes its worker at once). A transport event that the live
 * stream carries (live/events.ts) is appended to it too, in the same transaction.
 */
export async function emitEvent<T extends EventType>(
  trx: Db,
  type: T,
  resource: { type: EventResourceType; id: number },
  data: EventData[T],
): Promise<string> {
  const publicId = newEventId();
  await sql`
    with e as (
      insert into events (public_id, type, resource_type, resource_id, data)
      values (${publicId}, ${type}, ${resource.type}, ${resource.id}, ${JSON.stringify(data)}::jsonb)
      returning id
    )
    insert into webhook_deliveries (event_id, subscription_id)
    select e.id, s.id from e, webhook_subscriptions s
    where s.is_active and s.event_types ? ${type}`.execute(trx);
  // The transport events a dispatch screen follows also enter the transport's live stream.
  const live = liveEventOf(type, data);
  if (live) await appendLiveEvents(trx, live.transportId, [live]);
  return publicId;
}
