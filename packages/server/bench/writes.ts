/**
 * `pnpm bench:writes`: write throughput with concurrency, on PostgreSQL, against the physical
 * limit of the design. It builds a database (BENCH_WRITES_URL, default transport_ops_writes on the
 * local server: migrated, demo data, 32 writer agents, 5,000 transports each to file complaints on,
 * one forum topic each in one category, a 5,000-message topic and a 20-message one), copies it,
 * and disables the statistics triggers on the copy. The built server runs on each (two processes;
 * the copy without the statistics fold). Then, per operation (transport creates, complaint creates,
 * forum posts) and per number of clients (1, 4, 16, 32; each client a distinct user), BENCH_ROUNDS
 * rounds (default 3) of BENCH_SECONDS (default 5) on each server, the order swapped every round:
 * a slow moment of a shared machine falls on both sides of a ratio.
 *
 * Then: a recount of every statistics roll-up and counter against the rows on the server with
 * statistics (exact or not); post + read of a message in the 5,000-message topic against the
 * 20-message one (one client, alternating, BENCH_ROUNDS rounds). Writes
 * bench/results/writes.md.
 *
 * `pnpm bench:writes --bulk N` instead times one `insert … select` of N transports into a fresh
 * migrated database (statistics triggers on), then the fold, then the recount.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fork, type ChildProcess } from 'node:child_process';
import { type Kysely, sql } from 'kysely';
import { connect } from '../src/db/connect.js';
import { migrateToLatest } from '../src/db/migrate.js';
import type { Database } from '../src/db/schema.js';
import { seedDemoData } from '../src/db/seed.js';
import { seedReferenceData } from '../src/db/seed-reference.js';
import { freePort, machine, start, stopAll, waitFor } from './harness.js';
import { serverUrl } from './target.js';

const here = new URL('.', import.meta.url).pathname;
const args = process.argv.slice(2);
const bulk = args.includes('--bulk') ? Number(args[args.indexOf('--bulk') + 1]) : null;
const url = process.env.BENCH_WRITES_URL ?? 'postgres://postgres@127.0.0.1:5432/transport_ops_writes';
const bareUrl = url.replace(/\/([^/?]+)(\?|$)/, '/$1_bare$2');
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const CLIENTS = (process.env.BENCH_CLIENTS ?? '1,4,16,32').split(',').map(Number);
const WRITERS = 32;
const POOL = 5000;

/** The statistics triggers (migration 0016 and the forum ones of 0007 it kept): off on the copy. */
const STATISTICS_TRIGGERS: Array<[string, string]> = [
  ...['insert', 'update', 'delete'].flatMap(
    (e): Array<[string, string]> => [
      ['transports', `transport_statistics_${e}`],
      ['complaints', `complaint_statistics_${e}`],
      ['complaint_status_history', `resolution_statistics_${e}`],
    ],
  ),
  ['forum_topics', 'forum_topics_count'],
  ['forum_topics', 'forum_topics_uncount'],
  ['forum_topics', 'forum_topics_count_visible_tags'],
  ['forum_topics', 'forum_topics_uncount_visible_tags'],
  ['forum_messages', 'forum_messages_count'],
  ['forum_reports', 'forum_report_counts_append'],
  ['actors', 'actor_counts_append'],
  ['actors', 'actor_counts_append_change'],
  ['users', 'users_count_role_id'],
  ['users', 'users_recount_role_id'],
  ['forum_topic_tags', 'forum_topic_tags_count_tag_id'],
  ['forum_topic_tags', 'forum_topic_tags_recount_tag_id'],
  ['forum_topic_tags', 'forum_topic_tags_count_visible'],
];

const admin = () => connect({ kind: 'postgres', url: serverUrl(url), poolSize: 1 });
const open = (target: string) =>
  connect({ kind: 'postgres', url: target, poolSize: 2, timeouts: { connectMs: 3000, statementMs: 0, queryMs: 0 } });
const nameOf = (target: string) => new URL(target).pathname.slice(1);

async function freshDatabase(target: string, template?: string): Promise<void> {
  const a = admin();
  await sql`drop database if exists ${sql.id(nameOf(target))} with (force)`.execute(a);
  await (template
    ? sql`create database ${sql.id(nameOf(target))} template ${sql.id(template)}`
    : sql`create database ${sql.id(nameOf(target))}`
  ).execute(a);
  await a.destroy();
}

const timed = async <T>(label: string, work: () => Promise<T>): Promise<T> => {
  const t0 = performance.now();
  const result = await work();
  console.log(`${label.padEnd(44)} ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return result;
};

/** Rows of every roll-up and counter that disagree with a recount of the rows they count. */
export async function mismatches(db: Kysely<Database>): Promise<Record<string, number>> {
  const day = (c: string) => `((${c}) at time zone 'UTC')::date`;
  const checks: Record<string, string> = {
    'transports per creator': `select count(*) from (select created_by, status, validation_level, vehicle_type_id, count(*)::int n,
        coalesce(sum(total_product_value::numeric), 0) v from transports group by 1, 2, 3, 4) r
      full join (select created_by, status, validation_level, vehicle_type_id, sum(transports)::int n, sum(product_value) v
        from transport_user_counts group by 1, 2, 3, 4 having sum(transports) <> 0 or sum(product_value) <> 0) x
      using (created_by, status, validation_level, vehicle_type_id) where (r.n, r.v) is distinct from (x.n, x.v)`,
    'transports per day': `select count(*) from (select ${day('created_at')} d, status, validation_level, count(*)::int n from transports group by 1, 2, 3) r
      full join (select day d, status, validation_level, sum(transports)::int n from transport_day_counts group by 1, 2, 3 having sum(transports) <> 0) x
      using (d, status, validation_level) where r.n is distinct from x.n`,
    'complaints per creator': `select count(*) from (select created_by, status, coalesce(complaint_type_id, 0) t, coalesce(country_id, 0) c, count(*)::int n
        from complaints group by 1, 2, 3, 4) r
      full join (select created_by, status, complaint_type_id t, country_id c, sum(complaints)::int n from complaint_user_counts
        group by 1, 2, 3, 4 having sum(complaints) <> 0) x using (created_by, status, t, c) where r.n is distinct from x.n`,
    'activity per user and day': `select count(*) from (select created_by u, ${day('created_at')} d, count(*)::int n from transports group by 1, 2) r
      full join (select user_id u, day d, sum(transports)::int n from user_day_counts group by 1, 2 having sum(transports) <> 0) x
      using (u, d) where r.n is distinct from x.n`,
    'vehicle type usage': `select count(*) from vehicle_types v where v.transports_count + coalesce((select sum(delta) from counter_deltas d
      where d.counter = 'vehicle_types.transports_count' and d.id = v.id), 0) <> (select count(*) from transports t where t.vehicle_type_id = v.id)`,
    'complaint type usage': `select count(*) from complaint_types v where v.complaints_count + coalesce((select sum(delta) from counter_deltas d
      where d.counter = 'complaint_types.complaints_count' and d.id = v.id), 0) <> (select count(*) from complaints t where t.complaint_type_id = v.id)`,
    'forum messages per category': `select count(*) from (select coalesce(t.category_id, 0) c, count(*)::int n from forum_messages m
        join forum_topics t on t.id = m.topic_id where m.deleted_at is null group by 1) r
      full join (select category_id c, sum(messages)::int n from forum_category_counts group by 1 having sum(messages) <> 0) x
      using (c) where r.n is distinct from x.n`,
  };
  const found: Record<string, number> = {};
  for (const [name, query] of Object.entries(checks)) {
    found[name] = Number((await sql.raw<{ count: string }>(query).execute(db)).rows[0]!.count);
  }
  return found;
}

/** 1M transports by `insert … select` into a migrated database: minutes, not tens of minutes. */
async function bulkInsert(n: number) {
  await freshDatabase(url);
  const db = open(url);
  await migrateToLatest(db);
  await seedReferenceData(db);
  await seedDemoData(db);
  const lines: string[] = [];
  const log = (line: string) => {
    console.log(line);
    lines.push(line);
  };
  const t0 = performance.now();
  await sql`insert into transports (charger_first_name, charger_last_name, vehicle_type_id, loading_point, product_label,
      total_product_value, status, validation_level, customer_id, created_by, created_at)
    select 'Driver', 'No ' || g, (select array_agg(id) from vehicle_types)[1 + g % 5], 'Lyon, terminal ' || g, 'Steel coils', (g % 1000) * 1.5,
      (array['PENDING','VALIDATED','IN_PROGRESS','COMPLETED','ARCHIVED'])[1 + g % 5], case when g % 5 = 0 then 0 else 2 end,
      (select array_agg(id) from actors where actor_role = 'CUSTOMER')[1 + g % 10], (select array_agg(id) from users)[1 + g % 5],
      now() - (g % 730) * interval '1 day' - (g % 86400) * interval '1 second'
    from generate_series(1, ${n}) g`.execute(db);
  log(`insert … select of ${n.toLocaleString('en')} transports, statistics triggers on: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const appended = await sql<{
    n: string;
  }>`select (select count(*) from transport_user_counts_delta) + (select count(*) from transport_day_counts_delta)
    + (select count(*) from user_day_counts_delta) + (select count(*) from user_month_counts_delta) + (select count(*) from counter_deltas) as n`.execute(
    db,
  );
  log(`rows appended to the statistics: ${Number(appended.rows[0]!.n).toLocaleString('en')}`);
  const t1 = performance.now();
  await sql`select fold_statistics()`.execute(db);
  log(`fold: ${((performance.now() - t1) / 1000).toFixed(1)} s`);
  log(`recount mismatches: ${JSON.stringify(await mismatches(db))}`);
  await db.destroy();
  return lines;
}

interface Writer {
  username: string;
  token: string;
  userId: number;
  topicId: number;
}

/** The database both servers start from. */
async function prepare() {
  await freshDatabase(url);
  const db = open(url);
  await timed('migrate, reference and demo data', async () => {
    await migrateToLatest(db);
    await seedReferenceData(db);
    await seedDemoData(db);
  });
  await timed(`${WRITERS} writers, ${(WRITERS * POOL).toLocaleString('en')} transports, topics`, async () => {
    await sql`insert into users (username, email, password_hash, role_id, country_id, organization_id)
      select 'bench.writer' || g, 'bench.writer' || g || '@transport-ops.example', u.password_hash, u.role_id, u.country_id, u.organization_id
      from generate_series(1, ${WRITERS}) g, users u where u.username = 'agent'`.execute(db);
    await sql`insert into transports (charger_first_name, charger_last_name, vehicle_type_id, loading_point, created_by)
      select 'Pool', 'No ' || g, (select min(id) from vehicle_types), 'Lyon', u.id
      from users u, generate_series(1, ${POOL}) g where u.username like 'bench.writer%'`.execute(db);
    const category = await sql<{ id: number }>`select min(id) as id from categories where scope = 'FORUM'`.execute(db);
    await sql`insert into forum_topics (title, content, author_id, category_id)
      select 'Bench topic of ' || username, 'Where the bench posts.', id, ${category.rows[0]!.id} from users where username like 'bench.writer%'`.execute(
      db,
    );
    for (const [title, size] of [
      ['Bench large topic', 5000],
      ['Bench small topic', 20],
    ] as const) {
      const topic = await sql<{ id: number; main: number }>`with t as (insert into forum_topics (title, content, author_id, category_id)
          select ${title}, 'A topic of its size.', id, ${category.rows[0]!.id} from users where username = 'agent' returning id, author_id),
        m as (insert into forum_messages (topic_id, author_id, content, is_main_message) select id, author_id, 'A topic of its size.', true from t returning id, topic_id)
        select topic_id as id, id as main from m`.execute(db);
      const { id, main } = topic.rows[0]!;
      await sql`insert into forum_messages (topic_id, parent_id, author_id, content)
        select ${id}::int, case when g % 3 = 0 then ${main}::int end, (select id from users where username = 'agent2'), 'Message ' || g from generate_series(2, ${size}) g`.execute(
        db,
      );
      await sql`update forum_messages set replies_count = (select count(*) from forum_messages r where r.parent_id = ${main}) where id = ${main}`.execute(
        db,
      );
      await sql`update forum_topics set messages_count = ${size} where id = ${id}`.execute(db);
    }
    await sql`select fold_statistics()`.execute(db);
    await sql`analyze`.execute(db);
  });
  await db.destroy();
  await timed('copy without statistics', async () => {
    await freshDatabase(bareUrl, nameOf(url));
    const bare = open(bareUrl);
    for (const [table, trigger] of STATISTICS_TRIGGERS)
      await sql`alter table ${sql.table(table)} disable trigger ${sql.id(trigger)}`.execute(bare);
    await bare.destroy();
  });
}

interface Server {
  label: string;
  base: string;
  url: string;
  process: ChildProcess;
  writers: Writer[];
}

async function startOn(label: string, target: string, fold: boolean): Promise<Server> {
  const port = await freePort();
  const child = start(['dist/server.js'], {
    DATABASE_URL: target,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    NODE_ENV: 'development',
    SEED_DEMO_DATA: 'false',
    RATE_LIMIT_ANONYMOUS: '1000000000',
    RATE_LIMIT_USER: '1000000000',
    RATE_LIMIT_ADMIN: '1000000000',
    STATISTICS_FOLD_INTERVAL_MS: fold ? '1000' : '0',
  });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(base);
  const db = open(target);
  const topics = await sql<{ username: string; user_id: number; topic_id: number }>`select u.username, u.id as user_id, t.id as topic_id
    from users u join forum_topics t on t.author_id = u.id and t.title = 'Bench topic of ' || u.username
    where u.username like 'bench.writer%' order by u.id`.execute(db);
  await db.destroy();
  const writers: Writer[] = [];
  for (const row of topics.rows) {
    const res = await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: row.username, password: 'demo1234' }),
    });
    const token = ((await res.json()) as { result: { access_token: string } }).result.access_token;
    writers.push({ username: row.username, token, userId: row.user_id, topicId: row.topic_id });
  }
  return { label, base, url: target, process: child, writers };
}

let loader: ChildProcess | null = null;
let nextId = 0;
const pending = new Map<number, (r: LoadResult) => void>();
interface LoadResult {
  latency: { p50: number; p99: number };
  total: number;
  seconds: number;
  ok: number;
  non2xx: number;
  errors: number;
}
function load(options: Record<string, unknown>): Promise<LoadResult> {
  if (!loader) {
    loader = fork(join(here, 'write-loader.mjs'), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    loader.on('message', (m: { id: number; result?: LoadResult; error?: string }) => {
      if (m.error) throw new Error(m.error);
      pending.get(m.id)?.(m.result!);
      pending.delete(m.id);
    });
  }
  const id = nextId++;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    loader!.send({ id, options });
  });
}

type Kind = 'transport' | 'complaint' | 'forum';
const PATHS: Record<Kind, string> = { transport: '/trade/transports', complaint: '/trade/complaints', forum: '/trade/forum/messages' };

async function runOn(server: Server, kind: Kind, clients: number) {
  const writers = server.writers.slice(0, clients);
  const users = await Promise.all(
    writers.map(async (w) => {
      if (kind !== 'complaint') return { token: w.token, topicId: w.topicId, transports: [] as number[] };
      const db = open(server.url);
      const free = await sql<{ id: number }>`select t.id from transports t where t.created_by = ${w.userId}
        and not exists (select 1 from complaints c where c.transport_id = t.id) order by t.id limit ${Math.ceil(8000 / clients) + 50}`.execute(
        db,
      );
      await db.destroy();
      return { token: w.token, topicId: w.topicId, transports: free.rows.map((r) => r.id) };
    }),
  );
  const db = open(server.url);
  const vehicle = await sql<{ id: number }>`select min(id) as id from vehicle_types where is_active`.execute(db);
  await db.destroy();
  return load({
    url: `${server.base}${PATHS[kind]}`,
    connections: clients,
    duration: seconds,
    users,
    kind,
    vehicleTypeId: vehicle.rows[0]!.id,
  });
}

const median = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** One client: post a message, then read it, in a topic; milliseconds per pair over `ms`. */
async function postAndRead(server: Server, topicId: number, parentId: number | null, ms: number): Promise<number> {
  const writer = server.writers[0]!;
  const headers = { authorization: `Bearer ${writer.token}`, 'content-type': 'application/json' };
  const until = performance.now() + ms;
  let pairs = 0;
  const t0 = performance.now();
  while (performance.now() < until) {
    const posted = await fetch(`${server.base}/trade/forum/messages`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ topicId, parentId, content: 'Unloading delayed by one hour.' }),
    });
    const { result } = (await posted.json()) as { result: { id: number } };
    const read = await fetch(`${server.base}/trade/forum/messages/${result.id}`, { headers });
    if (!read.ok) throw new Error(`read ${result.id}: ${read.status}`);
    await read.arrayBuffer();
    pairs++;
  }
  return (performance.now() - t0) / pairs;
}

async function main() {
  const out: string[] = [
    `# Write throughput`,
    '',
    `Machine: ${machine()}. Load average at start: ${(await import('node:os'))
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(', ')}.`,
    '',
  ];
  if (bulk) {
    out.push('## Bulk insert into a migrated database (PostgreSQL)', '', ...(await bulkInsert(bulk)).map((l) => `- ${l}`), '');
    mkdirSync(join(here, 'results'), { recursive: true });
    writeFileSync(join(here, 'results', 'bulk-insert.md'), `${out.join('\n')}\n`);
    return;
  }
  await prepare();
  const full = await startOn('statistics', url, true);
  const bare = await startOn('no statistics', bareUrl, false);
  out.push(
    `Each cell: median over ${rounds} rounds of ${seconds} s per server, the two servers loaded in alternation (order swapped every round); every client a distinct user. req/s of 2xx answers; p99 in ms. "no statistics": the same server on a copy of the database with the statistics triggers disabled and no fold (the physical limit of the design).`,
    '',
    '| operation | clients | statistics req/s | no statistics req/s | ratio | statistics p99 | no statistics p99 | rounds (ratio min-max) | errors |',
    '|---|---|---|---|---|---|---|---|---|',
  );
  for (const kind of ['transport', 'complaint', 'forum'] as Kind[]) {
    for (const clients of CLIENTS) {
      const tally = {
        full: [] as number[],
        bare: [] as number[],
        fullP99: [] as number[],
        bareP99: [] as number[],
        ratios: [] as number[],
        bad: 0,
      };
      for (let round = 0; round < rounds; round++) {
        const order = round % 2 === 0 ? [full, bare] : [bare, full];
        const perSide = new Map<Server, LoadResult>();
        for (const server of order) perSide.set(server, await runOn(server, kind, clients));
        const f = perSide.get(full)!;
        const b = perSide.get(bare)!;
        tally.full.push(f.ok / f.seconds);
        tally.bare.push(b.ok / b.seconds);
        tally.fullP99.push(f.latency.p99);
        tally.bareP99.push(b.latency.p99);
        tally.ratios.push(f.ok / f.seconds / (b.ok / b.seconds));
        tally.bad += f.non2xx + f.errors + b.non2xx + b.errors;
      }
      const row = `| ${kind} creates | ${clients} | ${median(tally.full).toFixed(0)} | ${median(tally.bare).toFixed(0)} | ${(median(tally.full) / median(tally.bare)).toFixed(2)} | ${median(tally.fullP99)} | ${median(tally.bareP99)} | ${Math.min(...tally.ratios).toFixed(2)}-${Math.max(...tally.ratios).toFixed(2)} | ${tally.bad} |`;
      console.log(row);
      out.push(row);
    }
  }
  const db = open(url);
  out.push(
    '',
    `Recount after the run (statistics server; rows that disagree, before the last fold): ${JSON.stringify(await mismatches(db))}`,
  );
  await sql`select fold_statistics()`.execute(db);
  out.push('', `After a fold: ${JSON.stringify(await mismatches(db))}`);
  const topics = await sql<{ title: string; id: number; main: number; n: number }>`select t.title, t.id, m.id as main,
      (select count(*) from forum_messages x where x.topic_id = t.id)::int as n
    from forum_topics t join forum_messages m on m.topic_id = t.id and m.is_main_message where t.title in ('Bench large topic', 'Bench small topic')`.execute(
    db,
  );
  await db.destroy();
  const large = topics.rows.find((r) => r.title === 'Bench large topic')!;
  const small = topics.rows.find((r) => r.title === 'Bench small topic')!;
  const pairs = { large: [] as number[], small: [] as number[] };
  await postAndRead(full, small.id, small.main, 1000);
  await postAndRead(full, large.id, large.main, 1000);
  for (let round = 0; round < rounds; round++) {
    for (const which of round % 2 === 0 ? (['small', 'large'] as const) : (['large', 'small'] as const)) {
      const topic = which === 'large' ? large : small;
      pairs[which].push(await postAndRead(full, topic.id, topic.main, seconds * 1000));
    }
  }
  out.push(
    '',
    '## Forum: post a reply, then read it (one client, statistics server)',
    '',
    '| topic | messages at start | ms per post + read (median) | rounds |',
    '|---|---|---|---|',
    `| small | ${small.n} | ${median(pairs.small).toFixed(2)} | ${pairs.small.map((v) => v.toFixed(2)).join(', ')} |`,
    `| large | ${large.n} | ${median(pairs.large).toFixed(2)} | ${pairs.large.map((v) => v.toFixed(2)).join(', ')} |`,
    '',
    `Large / small: ${(median(pairs.large) / median(pairs.small)).toFixed(2)}x.`,
  );
  console.log(out.slice(-8).join('\n'));
  mkdirSync(join(here, 'results'), { recursive: true });
  writeFileSync(join(here, 'results', 'writes.md'), `${out.join('\n')}\n`);
}

try {
  await main();
} finally {
  (loader as ChildProcess | null)?.disconnect();
  stopAll();
}
