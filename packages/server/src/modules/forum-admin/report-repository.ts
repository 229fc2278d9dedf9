import type { components, operations } from '@transport-ops/contract';
import { type BoundFilters, type FilterSpecs, filters, same, type WhereOf } from '../../lib/filter-spec.js';
import { type Kysely, sql } from 'kysely';
import type { Database, ReportReason, ReportStatus } from '../../db/schema.js';
import { fetchPage } from '../../lib/paging.js';
import { queryShape } from '../../lib/query-shape.js';
import { iso } from '../../lib/time.js';
import { containing } from '../../lib/text.js';
import type { Defaulted, Query } from '../../http/handlers.js';

type Db = Kysely<Database>;
type ReportedMessage = components['schemas']['ForumReportedMessage'];
type ReportedMessageDetail = components['schemas']['ForumReportedMessageDetail'];

/** A user's display name: their actor's names, the username when they have no actor. */
const firstName = (actor: string, user: string) => sql<string>`coalesce(${sql.ref(`${actor}.first_name`)}, ${sql.ref(`${user}.username`)})`;
const lastName = (actor: string) => sql<string>`coalesce(${sql.ref(`${actor}.last_name`)}, '')`;

/** Reports with their message, topic, reporter and resolver, as moderators see them (hidden and deleted included). */
function selectReports(db: Db) {
  return db
    .selectFrom('forum_reports as r')
    .innerJoin('forum_messages as m', 'm.id', 'r.message_id')
    .innerJoin('forum_topics as t', 't.id', 'm.topic_id')
    .innerJoin('users as ru', 'ru.id', 'r.reporter_id')
    .leftJoin('actors as ra', 'ra.id', 'ru.actor_id')
    .innerJoin('users as mu', 'mu.id', 'm.author_id')
    .leftJoin('actors as ma', 'ma.id', 'mu.actor_id')
    .leftJoin('users as vu', 'vu.id', 'r.resolved_by')
    .leftJoin('actors as va', 'va.id', 'vu.actor_id')
    .select([
      'r.id',
      'r.reason',
      'r.comment',
      'r.status',
      'r.created_at',
      'r.resolved_at',
      'r.resolution_comment',
      'r.resolved_by',
      'ru.id as reporter_id',
      firstName('ra', 'ru').as('reporter_first_name'),
      lastName('ra').as('reporter_last_name'),
      'm.id as message_id',
      'm.content as message_content',
      'm.is_main_message',
      'm.is_hidden as message_is_hidden',
      'm.deleted_at as message_deleted_at',
      'm.created_at as message_created_at',
      'mu.id as author_id',
      firstName('ma', 'mu').as('author_first_name'),
      lastName('ma').as('author_last_name'),
      't.id as topic_id',
      't.title as topic_title',
      't.status as topic_status',
      't.is_hidden as topic_is_hidden',
      sql<string | null>`nullif(trim(concat_ws(' ', coalesce(va.first_name, vu.username), va.last_name)), '')`.as('resolver_name'),
      sql<number>`(select count(*) from forum_reports r2 where r2.message_id = r.message_id)::int`.as('reports_count'),
      sql<number>`(select count(*) from forum_reports r3 where r3.message_id = r.message_id and r3.status = 'PENDING')::int`.as(
        'pending_reports_count',
      ),
    ]);
}
type ReportRow = NonNullable<Awaited<ReturnType<ReturnType<typeof selectReports>['executeTakeFirst']>>>;

function toReportedMessage(row: ReportRow): ReportedMessage {
  return {
    id: row.id,
    reason: row.reason,
    comment: row.comment,
    status: row.status,
    reporter: { id: row.reporter_id, firstName: row.reporter_first_name, lastName: row.reporter_last_name, avatar: null },
    message: {
      id: row.message_id,
      content: row.message_content,
      topicId: row.topic_id,
      author: { id: row.author_id, firstName: row.author_first_name, lastName: row.author_last_name, avatar: null },
      isMainMessage: row.is_main_message,
      isHidden: row.message_is_hidden,
      isDeleted: row.message_deleted_at !== null,
      createdAt: iso(row.message_created_at),
    },
    reportsCount: Number(row.reports_count),
    createdAt: iso(row.created_at),
    resolvedAt: iso(row.resolved_at),
  };
}

function toReportedMessageDetail(row: ReportRow): ReportedMessageDetail {
  return Object.assign({}, toReportedMessage(row), {
    topic: { id: row.topic_id, title: row.topic_title, status: row.topic_status, isHidden: row.topic_is_hidden },
    pendingReportsCount: Number(row.pending_reports_count),
    resolutionComment: row.resolution_comment,
    resolvedBy: row.resolved_by === null ? null : { id: row.resolved_by, name: row.resolver_name ?? `User ${row.resolved_by}` },
  });
}

export type ReportFilters = Defaulted<Query<'listReportedMessages'>, 'page' | 'limit' | 'sortBy' | 'sortOrder'>;

/** The query parameters of the moderators' report list, as the contract declares them. */
export type ListParameters = NonNullable<operations['listReportedMessages']['parameters']['query']>;

type Where = WhereOf<ReturnType<typeof selectReports>>;

/**
 * Each filter of the moderators' report list, declared once (lib/filter-spec.ts), applied by the
 * query shape to the page and its count. Typed from the contract: a query parameter of
 * `listReportedMessages` with no entry here (and not a paging one) is a type error. The order is
 * the order of the conditions.
 */
export const FILTERS: FilterSpecs<ListParameters, Where> = {
  status: { bind: same, where: (eb, v) => eb('r.status', '=', v as ReportStatus), columns: ['r.status'] },
  reason: { bind: same, where: (eb, v) => eb('r.reason', '=', v as ReportReason), columns: ['r.reason'] },
  topicId: { bind: same, where: (eb, v) => eb('m.topic_id', '=', v as number), columns: ['m.topic_id'] },
  search: {
    bind: containing,
    where: (eb, v) => eb.or([eb('m.content', 'ilike', v as string), eb('r.comment', 'ilike', v as string)]),
    columns: ['m.content', 'r.comment'],
    text: true,
  },
};
const FILTER = filters(FILTERS);

type ListParams = BoundFilters<ListParameters> & { byReports: boolean; direction: 'asc' | 'desc' };

/** The moderators' report list (a query shape: compiled once per combination of filters and order). */
const reportList = queryShape(
  { values: FILTER.values, structure: ['byReports', 'direction', ...FILTER.structure] },
  (db, p: ListParams) => {
    const query = FILTER.apply(selectReports(db), p);
    const ordered = p.byReports
      ? query.orderBy(sql.ref('reports_count'), p.direction).orderBy('r.created_at', p.direction)
      : query.orderBy('r.created_at', p.direction);
    return ordered.orderBy('r.id', p.direction);
  },
);

export async function listReports(db: Db, f: ReportFilters) {
  const shaped = reportList.with(
    FILTER.bind(f, { byReports: f.sortBy === 'reportsCount', direction: f.sortOrder === 'ASC' ? 'asc' : 'desc' } as const),
  );
  const { rows, total } = await fetchPage(shaped, f.page, f.limit, db);
  return { data: rows.map(toReportedMessage), total };
}

export async function findReport(db: Db, id: number): Promise<ReportedMessageDetail | undefined> {
  const row = await selectReports(db).where('r.id', '=', id).executeTakeFirst();
  return row && toReportedMessageDetail(row);
}

/**
 * Records the decision on a PENDING report; the status guard makes the decision final even when
 * two moderators decide at once. Returns the reported message id, or undefined when the report is
 * unknown or already decided.
 */
export async function decideReport(
  trx: Db,
  id: number,
  decision: { status: 'RESOLVED' | 'DISMISSED'; comment: string | null; resolvedBy: number },
): Promise<number | undefined> {
  const row = await trx
    .updateTable('forum_reports')
    .set({ status: decision.status, resolution_comment: decision.comment, resolved_by: decision.resolvedBy, resolved_at: new Date() })
    .where('id', '=', id)
    .where('status', '=', 'PENDING')
    .returning('message_id')
    .executeTakeFirst();
  return row?.message_id;
}

export async function reportStatus(db: Db, id: number): Promise<ReportStatus | undefined> {
  const row = await db.selectFrom('forum_reports').select('status').where('id', '=', id).executeTakeFirst();
  return row?.status;
}
