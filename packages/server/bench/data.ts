/**
 * `pnpm bench:data --transports N`: a realistic dataset in a PostgreSQL database of its own
 * (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/transport_ops_bench), dropped
 * and recreated: the demo accounts (password demo1234), then N transports over two years (recent
 * months busier), by N/2000 agents (at least 20) in teams of about ten, a few of them far busier
 * than the rest; N/10 customers and complaints, N/20 forum topics with N/4 messages, N/2000
 * announcements (at least 50), N/5000 published tutorials (at least 10, a full page) besides the demo's five, each opened by
 * about a third of the agents (progress records, some completed and rated). `--busy-agent K` adds
 * one agent, `bench.busy`, who creates K of every 1,000,000 transports and forum topics (10,000 of
 * 1M, 100 of 10k); one topic names the loading number of its first transport (busy-agent.ts).
 * Every table is filled by set-based `insert … select generate_series`, then analyzed. `--drop`
 * only drops the database.
 */
import { sql } from 'kysely';
import { connect } from '../src/db/connect.js';
import { createMigrator, migrateToLatest } from '../src/db/migrate.js';
import { migrations } from '../src/db/migrations/index.js';
import { seedDemoData } from '../src/db/seed.js';
import { benchDatabaseUrl, serverUrl } from './target.js';
import { busyAgent, busyTopics, tutorials } from './busy-agent.js';

const args = process.argv.slice(2);
const arg = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const n = Number(arg('transports') ?? 10_000);
if (!Number.isInteger(n) || n < 100) throw new Error('--transports must be an integer of at least 100');
const busyShare = arg('busy-agent') === undefined ? 0 : Number(arg('busy-agent'));
if (!Number.isInteger(busyShare) || busyShare < 0 || busyShare > 1_000_000) throw new Error('--busy-agent takes transports per million');

const url = benchDatabaseUrl();
const name = new URL(url).pathname.slice(1);
const admin = connect({ kind: 'postgres', url: serverUrl(url), poolSize: 1 });
await sql`drop database if exists ${sql.id(name)} with (force)`.execute(admin);
if (args.includes('--drop')) {
  await admin.destroy();
  console.log(`dropped ${name}`);
  process.exit(0);
}
await sql`create database ${sql.id(name)}`.execute(admin);
await admin.destroy();

// A bulk load: no statement or query timeout (the server's defaults would cancel it at 1M rows).
const db = connect({ kind: 'postgres', url, poolSize: 1, timeouts: { connectMs: 3000, statementMs: 0, queryMs: 0 } });
const started = Date.now();
const step = async (label: string, statements: ReturnType<typeof sql> | ReturnType<typeof sql>[]) => {
  const t0 = Date.now();
  for (const statement of [statements].flat()) await statement.execute(db);
  console.log(`${label.padEnd(28)} ${((Date.now() - t0) / 1000).toFixed(1)} s`);
};
// Rows first, indexes after (as a bulk load does): migrate up to the scale indexes, load, then finish.
const { error } = await createMigrator(db).migrateTo(
  Object.keys(migrations)
    .filter((m) => m < '0004_scale')
    .at(-1)!,
);
if (error) throw error;
await seedDemoData(db);
// Secondary (non-unique) indexes of the bulk tables are rebuilt once after the load.
const BULK = ['transports', 'complaints', 'forum_topics', 'forum_messages', 'actors'];
const secondary = await sql<{ name: string; def: string }>`select indexname as name, indexdef as def from pg_indexes
  where schemaname = 'public' and tablename = any(${BULK}) and indexdef not like 'CREATE UNIQUE%'`.execute(db);
for (const index of secondary.rows) await sql`drop index ${sql.id(index.name)}`.execute(db);

const agents = Math.max(20, Math.round(n / 2000));
const teams = Math.max(3, Math.round(agents / 10));
const customers = Math.max(50, Math.round(n / 10));
const topics = Math.max(20, Math.round(n / 20));
const messages = topics * 5;
const announcements = Math.max(50, Math.round(n / 2000));
const pick = (list: string[]) => sql.raw(`(array[${list.map((w) => `'${w.replace(/'/g, "''")}'`).join(',')}])`);
const CITIES = pick([
  'Lyon',
  'Marseille',
  'Paris',
  'Lille',
  'Toulouse',
  'Bordeaux',
  'Nantes',
  'Strasbourg',
  'Dakar',
  'Abidjan',
  'Casablanca',
  'Rabat',
  'Tanger',
  'Thiès',
  'Grenoble',
  'Valence',
  'Rouen',
  'Le Havre',
  'Dijon',
  'Nice',
]);
const PLACES = pick([
  'port terminal',
  'industrial zone',
  'logistics platform',
  'warehouse 4',
  'rail yard',
  'market hall',
  'distribution centre',
  'cold store',
]);
const PRODUCTS = pick([
  'Steel coils',
  'Office furniture',
  'Frozen fish',
  'Cement bags',
  'Fresh vegetables',
  'Cotton bales',
  'Cocoa beans',
  'Spare parts',
  'Fertilizer',
  'Timber',
  'Bottled water',
  'Electronics',
]);
const STATUSES = pick([
  'COMPLETED',
  'COMPLETED',
  'COMPLETED',
  'ARCHIVED',
  'ARCHIVED',
  'IN_PROGRESS',
  'VALIDATED',
  'PENDING',
  'CANCELLED',
  'ON_HOLD',
]);
const WORDS = pick([
  'delay',
  'route',
  'fuel',
  'customs',
  'tyres',
  'axle load',
  'night driving',
  'toll',
  'weather',
  'loading dock',
  'pallets',
  'paperwork',
]);

await step(
  'teams',
  sql`insert into organizations (name, code, type, parent_id, country_id)
  select 'Bench team ' || g, 'BENCH-T' || g, 'TEAM', (select id from organizations where code = 'TOG-FRN'), (select id from countries where code = 'FR')
  from generate_series(1, ${teams - 1}) g`,
);
// Agent k is in team k mod teams; team 0 is the demo manager's Team Alpha.
await step(
  'agents',
  sql`with t as (
    select array_agg(id order by id) filter (where code like 'BENCH-T%') || array[(select id from organizations where code = 'TOG-FRN-ALPHA')] as ids from organizations)
  insert into users (username, email, password_hash, role_id, country_id, organization_id)
  select 'bench.agent' || g, 'bench.agent' || g || '@transport-ops.example', (select password_hash from users where username = 'agent'),
    (select id from roles where code = 'AGENT'), (select id from countries where code = 'FR'), t.ids[1 + g % ${teams}]
  from generate_series(1, ${agents}) g, t`,
);
await step(
  'customers',
  sql`insert into actors (actor_role, first_name, last_name, email, phone, address, created_at)
  select 'CUSTOMER', 'Customer' || g, ${CITIES}[1 + g % 20] || ' Trading', 'customer' || g || '@client.example', '+33 6 ' || lpad((g % 100000000)::text, 8, '0'),
    g || ' rue du Port, ' || ${CITIES}[1 + g % 20], now() - random() * interval '730 days'
  from generate_series(1, ${customers}) g`,
);
// Skew: squared randoms put more transports on recent days and on the first agents.
await step(
  'transports',
  sql`with a as (select array_agg(id order by id) as ids, count(*)::int as k from users where username like 'bench.agent%'),
    vt as (select array_agg(id) as ids, count(*)::int as k from vehicle_types where is_active),
    cu as (select min(id) as lo, max(id) as hi from actors where actor_role = 'CUSTOMER'),
    r as (select g, now() - (random() ^ 2) * interval '730 days' as at, random() as q from generate_series(1, ${n}) g)
  insert into transports (loading_number, charger_first_name, charger_last_name, charger_phone, vehicle_type_id, loading_point, unloading_point,
    vehicle_plate_number, product_label, product_quantity, average_weight, average_unit_price, total_product_value, status, customer_id, created_by, created_at, updated_at)
  select 'TRP-' || to_char(r.at, 'YYYYMMDD') || '-' || lpad((r.g + 1000000)::text, 7, '0'), 'Driver', 'No' || r.g, '+33 7 ' || lpad((r.g % 100000000)::text, 8, '0'),
    vt.ids[1 + r.g % vt.k], ${CITIES}[1 + (r.g * 7) % 20] || ', ' || ${PLACES}[1 + r.g % 8], ${CITIES}[1 + (r.g * 13) % 20] || ', ' || ${PLACES}[1 + (r.g / 8) % 8],
    'AB-' || lpad((r.g % 1000)::text, 3, '0') || '-CD', ${PRODUCTS}[1 + r.g % 12], 1 + r.g % 40, 100 + r.g % 900, 10 + r.g % 500, (1 + r.g % 40) * (10 + r.g % 500),
    ${STATUSES}[1 + floor(r.q * 10)::int], case when r.g % 5 = 0 then null else cu.lo + r.g % (cu.hi - cu.lo + 1) end,
    a.ids[1 + floor((random() ^ 2) * a.k)::int], r.at, r.at + interval '2 hours'
  from r, a, vt, cu`,
);
if (busyShare > 0) await step('busy agent', busyAgent(busyShare));
await step('loading sequence', sql`select setval('transport_loading_seq', ${n + 2_000_000})`);
await step(
  'complaints',
  sql`insert into complaints (label, description, status, location, transport_id, customer_id, complaint_type_id, country_id, created_by, assigned_to, resolved_at, created_at, updated_at)
  select 'Complaint about ' || lower(t.product_label) || ' ' || ${WORDS}[1 + t.id % 12], 'The customer reports ' || ${WORDS}[1 + (t.id / 10) % 12] || ' on transport ' || t.loading_number,
    s.status, split_part(t.unloading_point, ',', 1), t.id, t.customer_id, (select min(id) from complaint_types) + t.id % 3, (select id from countries where code = 'FR'), t.created_by,
    case when t.id % 3 = 0 then (select id from users where username = 'supervisor') end, case when s.status = 'RESOLVED' then t.created_at + interval '3 days' end,
    t.created_at + interval '1 day', t.created_at + interval '1 day' + (t.id % 240) * interval '1 hour'
  from transports t cross join lateral (select (array['PENDING','IN_PROGRESS','UNDER_REVIEW','RESOLVED','RESOLVED','CLOSED','REJECTED','ESCALATED'])[1 + t.id % 8] as status) s
  where t.id % 10 = 0`,
);
await step(
  'forum topics',
  sql`with a as (select array_agg(id order by id) as ids, count(*)::int as k from users where username like 'bench.agent%'),
    c as (select array_agg(id) as ids, count(*)::int as k from categories where scope = 'FORUM')
  insert into forum_topics (title, description, content, status, category_id, author_id, views_count, likes_count, last_message_at, created_at, updated_at)
  select 'Question about ' || ${WORDS}[1 + g % 12] || ' near ' || ${CITIES}[1 + g % 20] || ' #' || g, 'Experience wanted', 'Has anyone dealt with ' || ${WORDS}[1 + (g / 12) % 12] || ' on the ' || ${CITIES}[1 + g % 20] || ' route?',
    case when g % 10 = 0 then 'CLOSED' else 'ACTIVE' end, c.ids[1 + g % c.k], a.ids[1 + floor((random() ^ 2) * a.k)::int], (random() * 500)::int, (random() ^ 3 * 50)::int,
    now() - (random() ^ 2) * interval '700 days', now() - interval '730 days', now() - interval '730 days'
  from generate_series(1, ${topics}) g, a, c`,
);
if (busyShare > 0) await step('busy agent topics', busyTopics(busyShare));
await step(
  'forum messages',
  sql`with a as (select array_agg(id order by id) as ids, count(*)::int as k from users where username like 'bench.agent%'),
    tp as (select min(id) as lo, max(id) as hi from forum_topics)
  insert into forum_messages (topic_id, author_id, content, is_main_message, created_at, updated_at)
  select ft.id, a.ids[1 + floor(random() * a.k)::int], 'Reply ' || g || ': check the ' || ${WORDS}[1 + g % 12] || ' first.', false,
    ft.last_message_at - (g % 5) * interval '1 hour', ft.last_message_at - (g % 5) * interval '1 hour'
  from generate_series(1, ${messages}) g, a, tp, lateral (select id, last_message_at from forum_topics where id = tp.lo + g % (tp.hi - tp.lo + 1)) ft`,
);
await step(
  'forum main messages',
  sql`insert into forum_messages (topic_id, author_id, content, is_main_message, created_at, updated_at)
  select id, author_id, content, true, created_at, created_at from forum_topics t
  where not exists (select 1 from forum_messages m where m.topic_id = t.id and m.is_main_message)`,
);
await step(
  'forum counters',
  sql`update forum_topics t set messages_count = m.n from (select topic_id, count(*)::int as n from forum_messages group by topic_id) m where m.topic_id = t.id`,
);
await step(
  'announcements',
  sql`insert into announcements (title, summary, content, status, priority, category_id, author_id, is_global, published_at, created_at, updated_at)
  select 'Notice ' || g || ': ' || ${WORDS}[1 + g % 12] || ' in ' || ${CITIES}[1 + g % 20], 'Operational notice', 'Details about ' || ${WORDS}[1 + g % 12] || '.',
    case when g % 10 = 0 then 'DRAFT' else 'PUBLISHED' end, (array['HIGH','MEDIUM','LOW'])[1 + g % 3],
    (select min(id) from categories where scope = 'ANNOUNCEMENT'), (select id from users where username = 'admin'), true,
    case when g % 10 = 0 then null else now() - (g % 700) * interval '1 day' end, now() - (g % 700) * interval '1 day', now() - (g % 700) * interval '1 day'
  from generate_series(1, ${announcements}) g`,
);
await step('tutorials', tutorials(Math.max(10, Math.round(n / 5000))));
await sql`set maintenance_work_mem = '256MB'`.execute(db);
const t1 = Date.now();
for (const index of secondary.rows) await sql.raw(index.def).execute(db);
await migrateToLatest(db);
console.log(`${'indexes'.padEnd(28)} ${((Date.now() - t1) / 1000).toFixed(1)} s`);
// Vacuum too: the visibility map lets index-only scans skip the heap, as autovacuum would on a live database.
await step('vacuum analyze', sql`vacuum analyze`);
await db.destroy();
console.log(
  `${name}: ${n} transports, ${agents} agents in ${teams} teams, ${customers} customers, ${Math.round(n / 10)} complaints, ${topics} topics, ${messages + topics} messages, ${announcements} announcements in ${((Date.now() - started) / 1000).toFixed(1)} s`,
);
