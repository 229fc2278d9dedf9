/**
 * `pnpm bench:cold [runs]` (`tsx bench/cold-stats.ts`): the statistics of every scope computed on a cache miss, on the
 * benchmark database (BENCH_DATABASE_URL). `pnpm bench` sees the cached answers (reused for up to
 * 10 s); here the change counters the caches watch are advanced before every call, so each call
 * computes its answer. Prints the median and the worst of `runs` calls (default 5), in ms.
 * Advances only sequences: the data is left as it is.
 */
import { sql } from 'kysely';
import { connect } from '../src/db/connect.js';
import { actorStats } from '../src/modules/actors/stats-repository.js';
import { complaintStats } from '../src/modules/complaints/stats-repository.js';
import { forumStats } from '../src/modules/forum-admin/stats-repository.js';
import { reportStatistics } from '../src/modules/reports/statistics-repository.js';
import { transportStats } from '../src/modules/transports/stats-repository.js';
import type { AuthContext } from '../src/lib/identity.js';
import { benchDatabaseUrl } from './target.js';

const runs = Number(process.argv[2] ?? 5);
const db = connect({ kind: 'postgres', url: benchDatabaseUrl(), poolSize: 4 });

async function caller(username: string): Promise<AuthContext> {
  const u = await db
    .selectFrom('users as u')
    .innerJoin('roles as r', 'r.id', 'u.role_id')
    .select(['u.id', 'u.username', 'u.email', 'u.role_id', 'r.access_level', 'u.country_id', 'u.organization_id', 'u.actor_id'])
    .where('u.username', '=', username)
    .executeTakeFirstOrThrow();
  return {
    userId: u.id,
    username: u.username,
    email: u.email,
    roleId: u.role_id,
    accessLevel: u.access_level,
    countryId: u.country_id,
    organizationId: u.organization_id,
    actorId: u.actor_id,
    sessionId: 0,
    tokenId: '',
    expiresAt: new Date(Date.now() + 3600_000),
  };
}

const supervisor = await caller('supervisor');
const manager = await caller('manager');
// The busiest agent of the generated data.
const agent = await caller('bench.agent1');

const invalidate = () =>
  sql`select nextval('transports_change_seq'), nextval('complaints_change_seq'), nextval('forum_topics_change_seq'),
    nextval('forum_messages_change_seq'), nextval('forum_reports_change_seq'), nextval('categories_change_seq'),
    nextval('actors_change_seq')`.execute(db);

const month = {
  startDate: new Date(Date.now() - 45 * 86400_000).toISOString(),
  endDate: new Date(Date.now() - 15 * 86400_000).toISOString(),
};
const year = {
  startDate: new Date(Date.now() - 400 * 86400_000).toISOString(),
  endDate: new Date(Date.now() - 35 * 86400_000).toISOString(),
};

const scenarios: Array<[string, () => Promise<unknown>]> = [
  ['report, supervisor, all time', () => reportStatistics(db, supervisor, {})],
  ['report, supervisor, 30 days (mid-day edges)', () => reportStatistics(db, supervisor, month)],
  ['report, supervisor, 365 days (mid-day edges)', () => reportStatistics(db, supervisor, year)],
  ['report, team manager, all time', () => reportStatistics(db, manager, {})],
  ['report, team manager, 30 days', () => reportStatistics(db, manager, month)],
  ['transport stats, supervisor, 30 days', () => transportStats(db, supervisor, 30)],
  ['transport stats, supervisor, 365 days', () => transportStats(db, supervisor, 365)],
  ['transport stats, team manager, 30 days', () => transportStats(db, manager, 30)],
  ['transport stats, busiest agent, 30 days', () => transportStats(db, agent, 30)],
  ['complaint stats, supervisor, 30 days', () => complaintStats(db, supervisor, 30)],
  ['complaint stats, team manager, 30 days', () => complaintStats(db, manager, 30)],
  ['complaint stats, busiest agent, 30 days', () => complaintStats(db, agent, 30)],
  ['forum stats', () => forumStats(db)],
  ['actor stats, supervisor', () => actorStats(db, supervisor, 30, 5)],
  ['actor stats, team manager', () => actorStats(db, manager, 30, 5)],
];

const { rows } = await sql<{ n: number }>`select count(*)::int as n from transports`.execute(db);
console.log(`cold statistics on ${rows[0]?.n} transports, ${runs} runs each (median / worst, ms)`);
for (const [name, run] of scenarios) {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    await invalidate();
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  console.log(`${name.padEnd(48)} ${times[Math.floor(runs / 2)]!.toFixed(1).padStart(8)} ${times.at(-1)!.toFixed(1).padStart(8)}`);
}
await db.destroy();
