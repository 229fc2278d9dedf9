import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.js';

type Db = Kysely<Database>;

/*
 * The partitions of transport_positions: one per UTC day, named transport_positions_pYYYYMMDD,
 * made ahead and dropped whole past the retention period. Several instances may run this at once:
 * `create table if not exists` and a lost race (the other made it first) both leave the partition.
 */

const DAY_MS = 86_400_000;
/** How far back a reported point may be (the contract's 7 days), and how many days are made ahead. */
export const BACKFILL_DAYS = 7;
export const AHEAD_DAYS = 2;

const dayStart = (t: Date) => new Date(Math.floor(t.getTime() / DAY_MS) * DAY_MS);
const dayName = (d: Date) => `transport_positions_p${d.toISOString().slice(0, 10).replaceAll('-', '')}`;
const PARTITION_NAME = /^transport_positions_p(\d{4})(\d{2})(\d{2})$/;

/** Whether pg_partman manages the table (then it makes and drops the partitions, not the server). */
async function managedByPartman(db: Db): Promise<boolean> {
  const { rows } = await sql<{ managed: boolean }>`
    select exists (select 1 from pg_extension where extname = 'pg_partman') as managed`.execute(db);
  if (!rows[0]?.managed) return false;
  const { rows: config } = await sql<{ n: number }>`
    select count(*)::int as n from partman.part_config where parent_table = 'public.transport_positions'`
    .execute(db)
    .catch(() => ({ rows: [{ n: 0 }] }));
  return (config[0]?.n ?? 0) > 0;
}

/** The day partitions that exist, by name. */
export async function positionPartitions(db: Db): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select c.relname as name from pg_inherits i
    join pg_class c on c.oid = i.inhrelid
    join pg_class p on p.oid = i.inhparent
    where p.relname = 'transport_positions'
    order by c.relname`.execute(db);
  return rows.map((r) => r.name);
}

/** Makes the day partitions covering [from, to] that are missing. Returns how many were made. */
export async function ensurePositionPartitions(db: Db, from: Date, to: Date): Promise<number> {
  const existing = new Set(await positionPartitions(db));
  let made = 0;
  for (let day = dayStart(from); day <= to; day = new Date(day.getTime() + DAY_MS)) {
    const name = dayName(day);
    if (existing.has(name)) continue;
    const next = new Date(day.getTime() + DAY_MS);
    try {
      await sql`create table if not exists ${sql.id(name)} partition of transport_positions
        for values from (${sql.lit(day.toISOString())}) to (${sql.lit(next.toISOString())})`.execute(db);
      made++;
    } catch (error) {
      // Another instance made it between the list and the create.
      if ((await positionPartitions(db)).includes(name)) continue;
      throw error;
    }
  }
  return made;
}

/** Drops the day partitions that end on or before `now - retentionDays`. Returns their names. */
export async function dropExpiredPartitions(db: Db, now: Date, retentionDays: number): Promise<string[]> {
  const cutoff = dayStart(new Date(now.getTime() - retentionDays * DAY_MS));
  const dropped: string[] = [];
  for (const name of await positionPartitions(db)) {
    const m = PARTITION_NAME.exec(name);
    if (!m) continue;
    const end = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) + DAY_MS;
    if (end > cutoff.getTime()) continue;
    await sql`drop table if exists ${sql.id(name)}`.execute(db);
    dropped.push(name);
  }
  return dropped;
}

/**
 * One round of maintenance: the partitions from BACKFILL_DAYS (bounded by the retention) before
 * `now` to AHEAD_DAYS after it exist, and those past the retention are gone. Nothing when
 * pg_partman manages the table.
 */
export async function maintainPositionPartitions(db: Db, now: Date, retentionDays: number): Promise<{ made: number; dropped: string[] }> {
  if (await managedByPartman(db)) return { made: 0, dropped: [] };
  const back = Math.min(BACKFILL_DAYS, retentionDays);
  const made = await ensurePositionPartitions(db, new Date(now.getTime() - back * DAY_MS), new Date(now.getTime() + AHEAD_DAYS * DAY_MS));
  const dropped = await dropExpiredPartitions(db, now, retentionDays);
  return { made, dropped };
}
