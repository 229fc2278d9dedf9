import { type RawBuilder, sql } from 'kysely';
import type { Db } from './repository.js';

/*
 * A transport's timeline: one UNION ALL branch per source, each giving the same five columns
 * (type, rank, record_id, occurred_at, detail) for one transport, ordered together by
 * (occurred_at, rank, record_id) and paged by a keyset on those three. Another source is one more
 * entry of TIMELINE_SOURCES, with its rank (the order of entries of
 * the same instant), and one case in the timeline mapper (mappers.ts, `toTimelineEntry`) that turns
 * its `detail` into the contract's entry; the contract's `TransportTimelineEntry.type` lists it.
 * Each branch reads its table's index on the transport (no history scan).
 */

export interface TimelineSource {
  type: string;
  rank: number;
  /** The branch: `type, rank, record_id, occurred_at, detail` of one transport's rows. */
  select: (transportId: number) => RawBuilder<unknown>;
}

export const TIMELINE_SOURCES: TimelineSource[] = [
  {
    type: 'STATUS_CHANGED',
    rank: 0,
    select: (id) => sql`select 'STATUS_CHANGED'::text as type, 0 as rank, h.id::bigint as record_id, h.created_at as occurred_at,
      jsonb_build_object('action', h.action, 'fromStatus', h.from_status, 'toStatus', h.to_status,
        'validationLevel', h.validation_level, 'comment', h.comment) as detail
      from transport_status_history h where h.transport_id = ${id}`,
  },
  {
    type: 'MILESTONE',
    rank: 1,
    select: (id) => sql`select 'MILESTONE'::text, 1, m.id::bigint, m.occurred_at, to_jsonb(m)
      from transport_milestones m where m.transport_id = ${id}`,
  },
  {
    type: 'DOCUMENT_ADDED',
    rank: 2,
    select: (id) => sql`select 'DOCUMENT_ADDED'::text, 2, d.id::bigint, d.uploaded_at,
      jsonb_build_object('id', d.id, 'type', d.type, 'filename', d.filename)
      from transport_documents d where d.transport_id = ${id}`,
  },
  {
    type: 'COMPLAINT_OPENED',
    rank: 3,
    select: (id) => sql`select 'COMPLAINT_OPENED'::text, 3, c.id::bigint, c.created_at,
      jsonb_build_object('id', c.id, 'label', c.label, 'status', c.status)
      from complaints c where c.transport_id = ${id}`,
  },
  {
    type: 'PROOF_OF_DELIVERY',
    rank: 4,
    select: (id) => sql`select 'PROOF_OF_DELIVERY'::text, 4, p.id::bigint, p.delivered_at,
      jsonb_build_object('id', p.id, 'receiverName', p.receiver_name,
        'photoCount', (select count(*) from proof_of_delivery_files f where f.proof_id = p.id and f.position > 0))
      from proofs_of_delivery p where p.transport_id = ${id}`,
  },
];

export interface TimelineCursor {
  /** occurred_at as UTC text with microseconds (a Date would lose them). */
  at: string;
  rank: number;
  id: number;
}

export interface TimelineRow {
  type: string;
  rank: number;
  record_id: number;
  occurred_at: Date;
  at: string;
  detail: Record<string, unknown>;
}

/** `limit` entries after `after` (from the start without it), oldest first. */
export async function timelinePage(db: Db, transportId: number, limit: number, after: TimelineCursor | null): Promise<TimelineRow[]> {
  const branches = sql.join(
    TIMELINE_SOURCES.map((s) => s.select(transportId)),
    sql` union all `,
  );
  const keyset = after
    ? sql`where (e.occurred_at, e.rank, e.record_id) > (${after.at}::timestamptz, ${after.rank}::int, ${after.id}::bigint)`
    : sql``;
  const { rows } = await sql<TimelineRow>`
    select e.type, e.rank, e.record_id, e.occurred_at,
      to_char(e.occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at, e.detail
    from (${branches}) as e (type, rank, record_id, occurred_at, detail)
    ${keyset}
    order by e.occurred_at, e.rank, e.record_id
    limit ${limit}`.execute(db);
  return rows;
}
