import { randomBytes } from 'node:crypto';
import { type Kysely, NO_MIGRATIONS, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/db/connect.js';
import { createMigrator, migrateToLatest } from '../../src/db/migrate.js';
import type { Database } from '../../src/db/schema.js';
import { seedDemoData } from '../../src/db/seed.js';
import { foldStatistics, liveCount } from '../../src/lib/counters.js';

interface Target {
  name: string;
  open(): Promise<Kysely<Database>>;
  close(db: Kysely<Database>): Promise<void>;
}

const pglite: Target = {
  name: 'PGlite (in memory)',
  open: async () => connect({ kind: 'pglite', dataDir: 'memory://' }),
  close: (db) => db.destroy(),
};

/** A throwaway database on the server of DATABASE_URL, dropped at the end. */
function postgres(url: string): Target {
  const name = `tmp_${randomBytes(6).toString('hex')}`;
  const admin = async <T>(run: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await run(client);
    } finally {
      await client.end();
    }
  };
  return {
    name: `PostgreSQL (${name})`,
    open: async () => {
      await admin((c) => c.query(`create database ${name}`));
      const target = new URL(url);
      target.pathname = `/${name}`;
      return connect({ kind: 'postgres', url: target.toString(), poolSize: 2 });
    },
    close: async (db) => {
      await db.destroy();
      await admin((c) => c.query(`drop database if exists ${name} with (force)`));
    },
  };
}

const targets = [pglite, ...(process.env.DATABASE_URL ? [postgres(process.env.DATABASE_URL)] : [])];

const TABLES = [
  'actor_counts',
  'actor_counts_delta',
  'actor_counts_folded',
  'actors',
  'admin_notifications',
  'announcement_likes',
  'announcement_reads',
  'announcement_tags',
  'announcements',
  'api_keys',
  'audit_log',
  'categories',
  'certificates',
  'complaint_attachments',
  'complaint_day_counts',
  'complaint_day_counts_delta',
  'complaint_day_counts_folded',
  'complaint_notifications',
  'complaint_status_history',
  'complaint_types',
  'complaint_user_counts',
  'complaint_user_counts_delta',
  'complaint_user_counts_folded',
  'complaints',
  'content_views',
  'counter_deltas',
  'countries',
  'events',
  'file_deletions',
  'forum_category_counts',
  'forum_category_counts_delta',
  'forum_category_counts_folded',
  'forum_messages',
  'forum_report_counts',
  'forum_report_counts_delta',
  'forum_report_counts_folded',
  'forum_reports',
  'forum_subscriptions',
  'forum_topic_likes',
  'forum_topic_tags',
  'forum_topics',
  'forum_votes',
  'idempotency_keys',
  'live_stream_leases',
  'login_throttles',
  'organizations',
  'proof_of_delivery_files',
  'proofs_of_delivery',
  'roles',
  'sessions',
  'states',
  'tags',
  'tracking_links',
  'transport_day_counts',
  'transport_day_counts_delta',
  'transport_day_counts_folded',
  'transport_documents',
  'transport_last_positions',
  'transport_live_events',
  'transport_live_sweeps',
  'transport_milestones',
  'transport_positions',
  'transport_status_history',
  'transport_user_counts',
  'transport_user_counts_delta',
  'transport_user_counts_folded',
  'transports',
  'tutorial_chapters',
  'tutorial_prerequisites',
  'tutorial_progress',
  'tutorial_statistics',
  'tutorial_statistics_delta',
  'tutorial_statistics_folded',
  'tutorial_tags',
  'tutorials',
  'user_day_counts',
  'user_day_counts_delta',
  'user_day_counts_folded',
  'user_month_counts',
  'user_month_counts_delta',
  'user_month_counts_folded',
  'users',
  'vehicle_types',
  'webhook_deliveries',
  'webhook_subscriptions',
];

async function domainTables(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<{ table_name: string }>`
    select table_name from information_schema.tables
    where table_schema = 'public' and table_name not like 'kysely_%' order by table_name`.execute(db);
  return rows.map((r) => r.table_name);
}

async function count(db: Kysely<Database>, query: ReturnType<typeof sql<{ n: number }>>): Promise<number> {
  const { rows } = await query.execute(db);
  return Number(rows[0]?.n);
}

const day = (column: string) => sql.raw(`((${column}) at time zone 'UTC')::date`);
/**
 * A roll-up's figures per key: since 0016 the roll-up is a view over folded totals and appended rows,
 * so a key may appear more than once; keys whose figures are all zero are left out.
 */
const live = (view: string, keys: string, values: string[]) =>
  sql.raw(`(select ${keys}, ${values.map((v) => `sum(${v}) as ${v}`).join(', ')} from ${view} group by ${keys}
    having ${values.map((v) => `sum(${v}) <> 0`).join(' or ')})`);
/** The tables of 0016 that writers append to, empty once folded. */
const DELTA_TABLES = [
  'transport_user_counts_delta',
  'transport_day_counts_delta',
  'complaint_user_counts_delta',
  'complaint_day_counts_delta',
  'user_day_counts_delta',
  'user_month_counts_delta',
  'actor_counts_delta',
  'forum_category_counts_delta',
  'forum_report_counts_delta',
  'counter_deltas',
];
/** Rows of a roll-up that disagree with the same figures grouped from the rows (rows of zeros aside). */
const rollUpMismatches = {
  'transports per creator': sql<{ n: number }>`select count(*) as n from (
      select created_by, status, validation_level, vehicle_type_id, count(*)::int as transports,
        coalesce(sum(total_product_value::numeric), 0) as product_value from transports group by 1, 2, 3, 4) r
    full join ${live('transport_user_counts', 'created_by, status, validation_level, vehicle_type_id', ['transports', 'product_value'])} x
      using (created_by, status, validation_level, vehicle_type_id)
    where r.transports is distinct from x.transports or r.product_value is distinct from x.product_value`,
  'transports per day': sql<{ n: number }>`select count(*) as n from (
      select ${day('created_at')} as day, status, validation_level, count(*)::int as transports,
        coalesce(sum(total_product_value::numeric), 0) as product_value from transports group by 1, 2, 3) r
    full join ${live('transport_day_counts', 'day, status, validation_level', ['transports', 'product_value'])} x using (day, status, validation_level)
    where r.transports is distinct from x.transports or r.product_value is distinct from x.product_value`,
  'complaints per creator': sql<{ n: number }>`select count(*) as n from (
      select created_by, status, coalesce(complaint_type_id, 0) as complaint_type_id, coalesce(country_id, 0) as country_id,
        count(*)::int as complaints, coalesce(sum(amount_paid::numeric), 0) as amount_paid, count(resolved_at)::int as resolved,
        coalesce(sum(extract(epoch from (resolved_at - created_at))), 0) as resolution_seconds from complaints group by 1, 2, 3, 4) r
    full join ${live('complaint_user_counts', 'created_by, status, complaint_type_id, country_id', ['complaints', 'amount_paid', 'resolved', 'resolution_seconds'])} x
      using (created_by, status, complaint_type_id, country_id)
    where (r.complaints, r.amount_paid, r.resolved, r.resolution_seconds) is distinct from (x.complaints, x.amount_paid, x.resolved, x.resolution_seconds)`,
  'complaints per day': sql<{ n: number }>`select count(*) as n from (
      select ${day('created_at')} as day, status, count(*)::int as complaints, coalesce(sum(amount_paid::numeric), 0) as amount_paid,
        count(resolved_at)::int as resolved, coalesce(sum(extract(epoch from (resolved_at - created_at))), 0) as resolution_seconds
      from complaints group by 1, 2) r
    full join ${live('complaint_day_counts', 'day, status', ['complaints', 'amount_paid', 'resolved', 'resolution_seconds'])} x
      using (day, status)
    where (r.complaints, r.amount_paid, r.resolved, r.resolution_seconds) is distinct from (x.complaints, x.amount_paid, x.resolved, x.resolution_seconds)`,
  'activity per user and day': sql<{ n: number }>`select count(*) as n from (
      select user_id, day, sum(transports)::int as transports, sum(complaints)::int as complaints, sum(resolutions)::int as resolutions from (
        select created_by as user_id, ${day('created_at')} as day, 1 as transports, 0 as complaints, 0 as resolutions from transports
        union all select created_by, ${day('created_at')}, 0, 1, 0 from complaints
        union all select created_by, ${day('created_at')}, 0, 0, 1 from complaint_status_history where status = 'RESOLVED' and created_by is not null
      ) a group by 1, 2) r
    full join ${live('user_day_counts', 'user_id, day', ['transports', 'complaints', 'resolutions'])} x using (user_id, day)
    where (r.transports, r.complaints, r.resolutions) is distinct from (x.transports, x.complaints, x.resolutions)`,
  'activity per user and month': sql<{ n: number }>`select count(*) as n from (
      select user_id, date_trunc('month', day)::date as month, sum(transports)::int as transports, sum(complaints)::int as complaints,
        sum(resolutions)::int as resolutions from user_day_counts group by 1, 2) r
    full join ${live('user_month_counts', 'user_id, month', ['transports', 'complaints', 'resolutions'])} x using (user_id, month)
    where (coalesce(r.transports, 0), coalesce(r.complaints, 0), coalesce(r.resolutions, 0))
      is distinct from (coalesce(x.transports, 0), coalesce(x.complaints, 0), coalesce(x.resolutions, 0))`,
  'actors per role, organization and state': sql<{ n: number }>`select count(*) as n from (
      select actor_role, coalesce(organization_id, 0) as organization_id, is_active, count(*)::int as actors from actors group by 1, 2, 3) r
    full join ${live('actor_counts', 'actor_role, organization_id, is_active', ['actors'])} x using (actor_role, organization_id, is_active)
    where r.actors is distinct from x.actors`,
  'visible topics per tag': sql<{ n: number }>`select count(*) as n from tags g where ${liveCount('tags.visible_topics_count', 'g')} <> (
      select count(*) from forum_topic_tags tt join forum_topics t on t.id = tt.topic_id where tt.tag_id = g.id and not t.is_hidden)`,
};

describe.each(targets)('database on $name', (target) => {
  let db: Kysely<Database>;

  beforeAll(async () => {
    db = await target.open();
  });
  afterAll(async () => {
    if (db) await target.close(db);
  });

  it('migrates an empty database to the latest schema, with every domain table', async () => {
    await migrateToLatest(db);
    expect(await domainTables(db)).toEqual(TABLES);
  });

  it('rolls the initial migration back completely, then applies it again', async () => {
    const down = await createMigrator(db).migrateTo(NO_MIGRATIONS);
    expect(down.error).toBeUndefined();
    expect(await domainTables(db)).toEqual([]);
    const { rows } = await sql`select 1 from pg_class where relname = 'transport_loading_seq'`.execute(db);
    expect(rows).toHaveLength(0);
    await migrateToLatest(db);
    expect(await domainTables(db)).toEqual(TABLES);
  });

  it('seeds the demo data once: true on an empty database, false afterwards', async () => {
    const started = performance.now();
    expect(await seedDemoData(db)).toBe(true);
    console.info(`[${target.name}] seed: ${Math.round(performance.now() - started)} ms`);
    expect(await seedDemoData(db)).toBe(false);
    const users = await db.selectFrom('users').select('username').orderBy('username').execute();
    expect(users.map((u) => u.username)).toEqual(['admin', 'agent', 'agent2', 'manager', 'supervisor']);
  });

  it('keeps the system roles at ids 1-5 and hands out the next id after them', async () => {
    const roles = await db.selectFrom('roles').select(['id', 'code']).orderBy('id').execute();
    expect(roles.map((r) => `${r.id}:${r.code}`)).toEqual(['1:SUPER_ADMIN', '2:ADMIN', '3:AGENT', '4:TEAM_MANAGER', '5:SUPERVISOR']);
    const custom = await db
      .insertInto('roles')
      .values({ code: 'AUDITOR', name: 'Auditor', access_level: 'agent' })
      .returning('id')
      .executeTakeFirstOrThrow();
    expect(custom.id).toBe(6);
    await db.deleteFrom('roles').where('id', '=', custom.id).execute();
  });

  it('numbers transports TRP-YYYYMMDD-NNNNNN from the sequence, by default too', async () => {
    const seeded = await db.selectFrom('transports').select('loading_number').execute();
    expect(seeded.length).toBeGreaterThan(0);
    for (const t of seeded) expect(t.loading_number).toMatch(/^TRP-\d{8}-\d{6}$/);
    const agent = await db.selectFrom('users').select('id').where('username', '=', 'agent').executeTakeFirstOrThrow();
    const vehicle = await db.selectFrom('vehicle_types').select('id').limit(1).executeTakeFirstOrThrow();
    const created = await db
      .insertInto('transports')
      .values({
        charger_first_name: 'Test',
        charger_last_name: 'Charger',
        vehicle_type_id: vehicle.id,
        loading_point: 'Paris',
        created_by: agent.id,
      })
      .returning(['id', 'loading_number', 'status'])
      .executeTakeFirstOrThrow();
    const today = new Date().toISOString().slice(0, 10).replaceAll('-', '');
    expect(created.loading_number).toBe(`TRP-${today}-${String(seeded.length + 1).padStart(6, '0')}`);
    expect(created.status).toBe('PENDING');
    await db.deleteFrom('transports').where('id', '=', created.id).execute();
  });

  // Each query counts the rows whose stored counter disagrees with a recount.
  const counterMismatches = {
    'forum message votes and replies': sql<{ n: number }>`select count(*) as n from forum_messages m where
      likes_count <> (select count(*) from forum_votes v where v.message_id = m.id and v.vote = 'LIKE')
      or dislikes_count <> (select count(*) from forum_votes v where v.message_id = m.id and v.vote = 'DISLIKE')
      or replies_count <> (select count(*) from forum_messages r where r.parent_id = m.id
        and ((r.deleted_at is null and not r.is_hidden) or r.replies_count > 0))`,
    'forum topic messages and likes': sql<{ n: number }>`select count(*) as n from forum_topics t where
      messages_count <> (select count(*) from forum_messages m where m.topic_id = t.id)
      or likes_count <> (select count(*) from forum_topic_likes l where l.topic_id = t.id)`,
    'announcement likes': sql<{ n: number }>`select count(*) as n from announcements a where
      likes_count <> (select count(*) from announcement_likes l where l.announcement_id = a.id)`,
    // Kept by triggers (0007): each customer's transports, the forum totals of each category.
    'customer transports': sql<{ n: number }>`select count(*) as n from actors a where
      ${liveCount('actors.transports_count', 'a')} <> (select count(*) from transports t where t.customer_id = a.id)`,
    'forum category totals': sql<{
      n: number;
    }>`select count(*) as n from categories c
      left join (select category_id, sum(topics) as topics, sum(messages) as messages from forum_category_counts group by 1) f
        on f.category_id = c.id where
      coalesce(f.topics, 0) <> (select count(*) from forum_topics t where t.category_id = c.id)
      or coalesce(f.messages, 0) <> (select count(*) from forum_messages m join forum_topics t on t.id = m.topic_id
        where t.category_id = c.id and m.deleted_at is null)`,
    // Kept by triggers (0009): the statistics roll-ups and each tag's visible topics.
    ...rollUpMismatches,
  };

  it.each(Object.entries(counterMismatches))('stores counters that agree with the rows they count: %s', async (_, mismatches) => {
    expect(await count(db, mismatches)).toBe(0);
  });

  it('has demo votes for the vote counters to count', async () => {
    expect(await count(db, sql<{ n: number }>`select count(*) as n from forum_votes where vote = 'LIKE'`)).toBeGreaterThan(0);
  });

  it('keeps the configuration usage counters equal to a recount through inserts, moves and deletes', async () => {
    // Kept by triggers (0008): each vehicle type's transports, complaint type's complaints, role's
    // users and tag's forum topics. Rows are copied from the seed, moved to another entry, deleted.
    const mismatches = (trx: Kysely<Database>) =>
      count(
        trx,
        sql<{ n: number }>`select
          (select count(*) from vehicle_types v
            where ${liveCount('vehicle_types.transports_count', 'v')} <> (select count(*) from transports t where t.vehicle_type_id = v.id))
          + (select count(*) from complaint_types c
            where ${liveCount('complaint_types.complaints_count', 'c')} <> (select count(*) from complaints x where x.complaint_type_id = c.id))
          + (select count(*) from roles r where ${liveCount('roles.users_count', 'r')} <> (select count(*) from users u where u.role_id = r.id))
          + (select count(*) from tags g
            where ${liveCount('tags.topics_count', 'g')} <> (select count(*) from forum_topic_tags ft where ft.tag_id = g.id)) as n`,
      );
    const counters = async (trx: Kysely<Database>) => {
      const { rows } = await sql<{ list: string; id: number; n: number }>`
        select 'vehicle' as list, v.id, ${liveCount('vehicle_types.transports_count', 'v')} as n from vehicle_types v
        union all select 'complaint', c.id, ${liveCount('complaint_types.complaints_count', 'c')} from complaint_types c
        union all select 'role', r.id, ${liveCount('roles.users_count', 'r')} from roles r
        union all select 'tag', g.id, ${liveCount('tags.topics_count', 'g')} from tags g`.execute(trx);
      return new Map(rows.map((r) => [`${r.list}:${r.id}`, Number(r.n)]));
    };
    const other = async (trx: Kysely<Database>, table: string, id: number) =>
      Number((await sql<{ id: number }>`select min(id) as id from ${sql.table(table)} where id <> ${id}`.execute(trx)).rows[0]?.id);
    const rollback = new Error('rollback');

    expect(await mismatches(db)).toBe(0);
    const before = await counters(db);
    expect([...before.values()].some((n) => n > 0)).toBe(true);

    await expect(
      db.transaction().execute(async (trx) => {
        const run = (query: ReturnType<typeof sql>) => query.execute(trx);
        // Insert: a copy of a transport, a complaint on it, a copy of a user, a tag on a topic that lacks it.
        await run(sql`create temp table t_copy on commit drop as select * from transports order by id limit 1`);
        await run(sql`update t_copy set id = nextval(pg_get_serial_sequence('transports', 'id')), public_id = gen_random_uuid(),
          loading_number = transport_loading_number()`);
        const transport = (
          await sql<{ id: number; vehicle_type_id: number }>`insert into transports select * from t_copy
          returning id, vehicle_type_id`.execute(trx)
        ).rows[0]!;
        await run(sql`create temp table c_copy on commit drop as select * from complaints order by id limit 1`);
        await run(sql`update c_copy set id = nextval(pg_get_serial_sequence('complaints', 'id')), public_id = gen_random_uuid(),
          transport_id = ${transport.id}`);
        const complaint = (
          await sql<{ id: number; complaint_type_id: number }>`insert into complaints select * from c_copy
          returning id, complaint_type_id`.execute(trx)
        ).rows[0]!;
        await run(sql`create temp table u_copy on commit drop as select * from users order by id limit 1`);
        await run(sql`update u_copy set id = nextval(pg_get_serial_sequence('users', 'id')), username = username || '-copy',
          email = 'copy.' || email, actor_id = null`);
        const user = (await sql<{ id: number; role_id: number }>`insert into users select * from u_copy returning id, role_id`.execute(trx))
          .rows[0]!;
        const tagged = (
          await sql<{ topic_id: number; tag_id: number }>`insert into forum_topic_tags (topic_id, tag_id)
            select t.id, g.id from forum_topics t cross join tags g
            where not exists (select 1 from forum_topic_tags x where x.topic_id = t.id and x.tag_id = g.id)
            order by t.id, g.id limit 1 returning topic_id, tag_id`.execute(trx)
        ).rows[0]!;
        expect(complaint.complaint_type_id).not.toBeNull();
        const inserted = await counters(trx);
        expect(inserted.get(`vehicle:${transport.vehicle_type_id}`)).toBe(before.get(`vehicle:${transport.vehicle_type_id}`)! + 1);
        expect(inserted.get(`role:${user.role_id}`)).toBe(before.get(`role:${user.role_id}`)! + 1);
        expect(inserted.get(`tag:${tagged.tag_id}`)).toBe(before.get(`tag:${tagged.tag_id}`)! + 1);
        expect(await mismatches(trx)).toBe(0);

        // Move: each row to another entry of its list.
        const vehicleType = await other(trx, 'vehicle_types', transport.vehicle_type_id);
        const complaintType = await other(trx, 'complaint_types', complaint.complaint_type_id);
        const role = await other(trx, 'roles', user.role_id);
        const tag = (
          await sql<{ id: number }>`select min(g.id) as id from tags g where not exists
            (select 1 from forum_topic_tags x where x.topic_id = ${tagged.topic_id} and x.tag_id = g.id)`.execute(trx)
        ).rows[0]!.id;
        await run(sql`update transports set vehicle_type_id = ${vehicleType} where id = ${transport.id}`);
        await run(sql`update complaints set complaint_type_id = ${complaintType} where id = ${complaint.id}`);
        await run(sql`update users set role_id = ${role} where id = ${user.id}`);
        await run(sql`update forum_topic_tags set tag_id = ${tag} where topic_id = ${tagged.topic_id} and tag_id = ${tagged.tag_id}`);
        const moved = await counters(trx);
        expect(moved.get(`vehicle:${transport.vehicle_type_id}`)).toBe(before.get(`vehicle:${transport.vehicle_type_id}`));
        expect(moved.get(`vehicle:${vehicleType}`)).toBe(before.get(`vehicle:${vehicleType}`)! + 1);
        expect(moved.get(`complaint:${complaintType}`)).toBe(before.get(`complaint:${complaintType}`)! + 1);
        expect(moved.get(`role:${role}`)).toBe(before.get(`role:${role}`)! + 1);
        expect(moved.get(`tag:${tag}`)).toBe(before.get(`tag:${tag}`)! + 1);
        expect(await mismatches(trx)).toBe(0);

        // Delete: every row added above; the counters come back to where they were.
        await run(sql`delete from forum_topic_tags where topic_id = ${tagged.topic_id} and tag_id = ${tag}`);
        await run(sql`delete from users where id = ${user.id}`);
        await run(sql`delete from complaints where id = ${complaint.id}`);
        await run(sql`delete from transports where id = ${transport.id}`);
        expect(await counters(trx)).toEqual(before);
        expect(await mismatches(trx)).toBe(0);
        throw rollback;
      }),
    ).rejects.toBe(rollback);
    expect(await counters(db)).toEqual(before);
  });

  it('keeps the statistics roll-ups equal to a recount through inserts, changes, moves and deletes', async () => {
    const mismatches = async (trx: Kysely<Database>) => {
      const found: Record<string, number> = {};
      for (const [name, query] of Object.entries(rollUpMismatches)) {
        const n = await count(trx, query);
        if (n > 0) found[name] = n;
      }
      return found;
    };
    const rollback = new Error('rollback');
    const appended = async (trx: Kysely<Database>) => {
      let n = 0;
      for (const table of DELTA_TABLES) n += await count(trx, sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`);
      return n;
    };
    expect(await mismatches(db)).toEqual({});
    await expect(
      db.transaction().execute(async (trx) => {
        const run = (query: ReturnType<typeof sql>) => query.execute(trx);
        const users = (await sql<{ id: number }>`select id from users order by id limit 2`.execute(trx)).rows.map((r) => r.id);
        // A transport created mid-day, then validated, valued, moved to another day and another creator.
        await run(sql`create temp table t_copy on commit drop as select * from transports order by id limit 1`);
        await run(sql`update t_copy set id = nextval(pg_get_serial_sequence('transports', 'id')), public_id = gen_random_uuid(),
          loading_number = transport_loading_number(), status = 'PENDING', validation_level = 0, total_product_value = 12.5,
          created_at = '2026-03-10T13:45:00Z'`);
        const transport = (await sql<{ id: number }>`insert into transports select * from t_copy returning id`.execute(trx)).rows[0]!.id;
        expect(await mismatches(trx)).toEqual({});
        await run(sql`update transports set validation_level = 1 where id = ${transport}`);
        await run(sql`update transports set status = 'VALIDATED', validation_level = 2, total_product_value = 0.1 where id = ${transport}`);
        await run(sql`update transports set total_product_value = null, created_at = created_at - interval '3 days 14 hours',
          created_by = ${users[1]!} where id = ${transport}`);
        expect(await mismatches(trx)).toEqual({});
        // Folded in the middle: the same figures from the totals alone.
        expect(await foldStatistics(trx)).toBeGreaterThan(0);
        expect(await appended(trx)).toBe(0);
        expect(await mismatches(trx)).toEqual({});
        // A complaint on it, resolved (history entry by a user), paid, moved to another type and country, then deleted.
        await run(sql`create temp table c_copy on commit drop as select * from complaints order by id limit 1`);
        await run(sql`update c_copy set id = nextval(pg_get_serial_sequence('complaints', 'id')), public_id = gen_random_uuid(),
          transport_id = ${transport}, status = 'PENDING', resolved_at = null, amount_paid = 3.3, created_at = '2026-03-10T23:30:00Z'`);
        const complaint = (await sql<{ id: number }>`insert into complaints select * from c_copy returning id`.execute(trx)).rows[0]!.id;
        await run(
          sql`update complaints set status = 'RESOLVED', resolved_at = created_at + interval '90 minutes 1.5 seconds' where id = ${complaint}`,
        );
        await run(sql`insert into complaint_status_history (complaint_id, status, created_by, created_at)
          values (${complaint}, 'RESOLVED', ${users[0]!}, '2026-03-11T00:30:00Z'), (${complaint}, 'RESOLVED', null, now())`);
        await run(
          sql`update complaints set amount_paid = null, country_id = null, complaint_type_id = null, created_by = ${users[1]!} where id = ${complaint}`,
        );
        await run(sql`update complaint_status_history set created_at = created_at - interval '2 days' where complaint_id = ${complaint}`);
        expect(await mismatches(trx)).toEqual({});
        await run(sql`update complaints set status = 'REOPENED', resolved_at = null where id = ${complaint}`);
        await run(sql`delete from complaints where id = ${complaint}`);
        await run(sql`delete from transports where id = ${transport}`);
        expect(await mismatches(trx)).toEqual({});
        // An actor deactivated, moved to an organization and to another role, then deleted.
        const actor = (
          await sql<{ id: number }>`insert into actors (actor_role, first_name, last_name, email)
            values ('CUSTOMER', 'Roll', 'Up', 'roll.up@example.test') returning id`.execute(trx)
        ).rows[0]!.id;
        await run(sql`update actors set is_active = false where id = ${actor}`);
        await run(sql`update actors set organization_id = (select min(id) from organizations) where id = ${actor}`);
        await run(sql`update actors set actor_role = 'AGENT', is_active = true where id = ${actor}`);
        expect(await mismatches(trx)).toEqual({});
        await run(sql`delete from actors where id = ${actor}`);
        expect(await mismatches(trx)).toEqual({});
        // A tagged topic hidden, shown, tagged again, hidden, then deleted with its tags.
        const tagged = (
          await sql<{
            topic_id: number;
          }>`select topic_id from forum_topic_tags group by topic_id order by count(*) desc, topic_id limit 1`.execute(trx)
        ).rows[0]!.topic_id;
        await run(sql`update forum_topics set is_hidden = true where id = ${tagged}`);
        expect(await mismatches(trx)).toEqual({});
        await run(sql`update forum_topics set is_hidden = false where id = ${tagged}`);
        await run(sql`insert into forum_topic_tags (topic_id, tag_id)
          select ${tagged}, g.id from tags g where not exists (select 1 from forum_topic_tags x where x.topic_id = ${tagged} and x.tag_id = g.id)
          order by g.id limit 1`);
        expect(await mismatches(trx)).toEqual({});
        await run(sql`delete from forum_topics where id = ${tagged}`);
        expect(await mismatches(trx)).toEqual({});
        throw rollback;
      }),
    ).rejects.toBe(rollback);
    expect(await mismatches(db)).toEqual({});
  });

  it('holds the demo scenarios the API tests rely on', async () => {
    const complaints = await db.selectFrom('complaints').select('status').execute();
    expect(complaints.map((c) => c.status)).toEqual(expect.arrayContaining(['PENDING', 'IN_PROGRESS', 'RESOLVED']));
    expect(await db.selectFrom('complaint_notifications').select('channel').execute()).toEqual([{ channel: 'EMAIL' }]);
    expect(await db.selectFrom('forum_reports').select('status').execute()).toEqual([{ status: 'PENDING' }]);
    const expired = await db
      .selectFrom('announcements')
      .select('id')
      .where('status', '=', 'PUBLISHED')
      .where('expires_at', '<', new Date())
      .execute();
    expect(expired).toHaveLength(1);
    const tutorials = await db.selectFrom('tutorials').select(['title', 'duration', 'status']).orderBy('id').execute();
    expect(tutorials.map((t) => t.duration)).toEqual(['SHORT', 'MEDIUM', 'MEDIUM', 'LONG', 'MEDIUM']);
    const found = await db
      .selectFrom('tutorials')
      .select('title')
      .where(sql<boolean>`search_vector @@ websearch_to_tsquery('english', 'customs convoys')`)
      .execute();
    expect(found.map((t) => t.title)).toEqual(['Planning cross-border convoys']);
  });

  it('refuses a second complaint on the same transport', async () => {
    const first = await db.selectFrom('complaints').selectAll().limit(1).executeTakeFirstOrThrow();
    await expect(
      db.insertInto('complaints').values({ label: 'Again', transport_id: first.transport_id, created_by: first.created_by }).execute(),
    ).rejects.toThrow(/complaints_transport_id_key/);
  });

  it('refuses a second vote by the same user on the same message', async () => {
    const vote = await db.selectFrom('forum_votes').selectAll().limit(1).executeTakeFirstOrThrow();
    await expect(
      db
        .insertInto('forum_votes')
        .values({ message_id: vote.message_id, user_id: vote.user_id, vote: vote.vote === 'LIKE' ? 'DISLIKE' : 'LIKE' })
        .execute(),
    ).rejects.toThrow(/forum_votes_pkey/);
  });

  it('refuses a customer with neither e-mail nor phone', async () => {
    await expect(
      db.insertInto('actors').values({ actor_role: 'CUSTOMER', first_name: 'No', last_name: 'Contact', email: null, phone: ' ' }).execute(),
    ).rejects.toThrow(/actors_customer_contact_check/);
  });

  it('refuses a duplicate e-mail in another case, a report twice, and a rating of 6', async () => {
    const admin = await db.selectFrom('users').selectAll().where('username', '=', 'admin').executeTakeFirstOrThrow();
    await expect(
      db
        .insertInto('users')
        .values({
          username: 'admin-copy',
          email: admin.email.toUpperCase(),
          password_hash: 'x',
          role_id: admin.role_id,
          country_id: admin.country_id,
        })
        .execute(),
    ).rejects.toThrow(/users_email_lower_key/);
    const report = await db.selectFrom('forum_reports').selectAll().limit(1).executeTakeFirstOrThrow();
    await expect(
      db.insertInto('forum_reports').values({ message_id: report.message_id, reporter_id: report.reporter_id, reason: 'SPAM' }).execute(),
    ).rejects.toThrow(/forum_reports_message_reporter_key/);
    await expect(db.updateTable('tutorial_progress').set({ rating: 6 }).execute()).rejects.toThrow(/tutorial_progress_rating_check/);
  });

  it('refuses a reply whose parent belongs to another topic', async () => {
    const [a, b] = await db
      .selectFrom('forum_messages')
      .select(['id', 'topic_id', 'author_id'])
      .where('is_main_message', '=', true)
      .orderBy('id')
      .limit(2)
      .execute();
    await expect(
      db
        .insertInto('forum_messages')
        .values({ topic_id: b!.topic_id, parent_id: a!.id, author_id: a!.author_id, content: 'Wrong tree' })
        .execute(),
    ).rejects.toThrow(/forum_messages_parent_fkey/);
  });
});
