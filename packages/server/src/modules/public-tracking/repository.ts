import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema.js';

type Db = Kysely<Database>;

/** The most route points a public view sends (the first and the newest always among them). */
export const ROUTE_POINTS = 200;
/** The newest milestones a public view sends. */
export const PUBLIC_MILESTONES = 50;

const linkColumns = (db: Db) =>
  db
    .selectFrom('tracking_links as l')
    .innerJoin('users as u', 'u.id', 'l.created_by')
    .select(['l.id', 'l.transport_id', 'l.expires_at', 'l.revoked_at', 'l.created_at', 'u.id as user_id', 'u.username']);
export type LinkRow = NonNullable<Awaited<ReturnType<ReturnType<typeof linkColumns>['executeTakeFirst']>>>;

export async function insertLink(db: Db, link: { transportId: number; tokenHash: string; expiresAt: Date; createdBy: number }) {
  const { id } = await db
    .insertInto('tracking_links')
    .values({ transport_id: link.transportId, token_hash: link.tokenHash, expires_at: link.expiresAt, created_by: link.createdBy })
    .returning('id')
    .executeTakeFirstOrThrow();
  return (await linkColumns(db).where('l.id', '=', id).executeTakeFirst())!;
}

export const linksOf = (db: Db, transportId: number) =>
  linkColumns(db).where('l.transport_id', '=', transportId).orderBy('l.id', 'desc').execute();

/** Revokes a link of the transport (a revoked one keeps its first `revoked_at`); undefined when it has none with this id. */
export async function revokeLink(db: Db, transportId: number, linkId: number) {
  await db
    .updateTable('tracking_links')
    .set({ revoked_at: sql`coalesce(revoked_at, now())` })
    .where('id', '=', linkId)
    .where('transport_id', '=', transportId)
    .execute();
  return linkColumns(db).where('l.id', '=', linkId).where('l.transport_id', '=', transportId).executeTakeFirst();
}

export const linkByHash = (db: Db, tokenHash: string) =>
  db
    .selectFrom('tracking_links')
    .select(['transport_id', 'expires_at', 'revoked_at'])
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();

/**
 * The route so far, thinned to at most ROUTE_POINTS: every n-th reported point in time order, and
 * the newest. One index range of the positions' primary key (every partition the trip spans).
 */
export async function thinnedRoute(db: Db, transportId: number) {
  const { rows } = await sql<{ recorded_at: Date; latitude: number; longitude: number; total: string }>`
    select recorded_at, latitude, longitude, total from (
      select recorded_at, latitude, longitude,
             row_number() over (order by recorded_at) as n,
             count(*) over () as total
        from transport_positions
       where transport_id = ${transportId}
    ) p
    where (n - 1) % greatest(1, ceil(total::numeric / ${ROUTE_POINTS - 1}))::bigint = 0 or n = total
    order by recorded_at`.execute(db);
  return { points: rows.slice(-ROUTE_POINTS), total: rows.length === 0 ? 0 : Number(rows[0]!.total) };
}

/** The newest milestones' types and times, oldest first (their notes are never public). */
export async function publicMilestones(db: Db, transportId: number) {
  const rows = await db
    .selectFrom('transport_milestones')
    .select(['type', 'occurred_at'])
    .where('transport_id', '=', transportId)
    .orderBy('occurred_at', 'desc')
    .orderBy('id', 'desc')
    .limit(PUBLIC_MILESTONES)
    .execute();
  return rows.reverse();
}
