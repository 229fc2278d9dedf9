import { CompiledQuery, sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/schema.js';
import { cappedCount, keysetIdsQuery, type SortKey } from '../../src/lib/paging.js';
import { ownedBy, ownedOrAssignedRuns, ownership, teamOwners } from '../../src/lib/scope.js';
import { listBase as actorBase } from '../../src/modules/actors/repository.js';
import { topCustomersQuery } from '../../src/modules/actors/stats-repository.js';
import { listBase as complaintBase } from '../../src/modules/complaints/repository.js';
import { recentActivityQuery } from '../../src/modules/forum-admin/stats-repository.js';
import { topicBase } from '../../src/modules/forum/topic-list-repository.js';
import { listBase as transportBase } from '../../src/modules/transports/repository.js';
import type { AuthContext } from '../../src/lib/identity.js';
import { useTestApp } from '../support/app.js';

/*
 * The plans of the main list queries on a generated dataset of moderate size, with sequential
 * scans disabled: a plan that still reads a large table sequentially has no index to serve it,
 * and would degrade linearly with the table. The data is generated and analyzed inside a
 * transaction that is rolled back, so the shared database is left as it was.
 */
const LARGE = ['transports', 'complaints', 'forum_topics', 'forum_messages', 'actors'];
const ROLLBACK = new Error('rollback');

const t = useTestApp();

async function auth(db: Kysely<Database>, username: string): Promise<AuthContext> {
  const u = await db
    .selectFrom('users as u')
    .innerJoin('roles as r', 'r.id', 'u.role_id')
    .select(['u.id', 'u.email', 'u.role_id', 'u.country_id', 'u.organization_id', 'r.access_level'])
    .where('u.username', '=', username)
    .executeTakeFirstOrThrow();
  return {
    userId: u.id,
    username,
    email: u.email,
    roleId: u.role_id,
    accessLevel: u.access_level as AuthContext['accessLevel'],
    countryId: u.country_id,
    organizationId: u.organization_id,
    actorId: null,
    sessionId: 0,
    tokenId: 'plan',
    expiresAt: new Date(),
  } as AuthContext;
}

/** Generates rows in bulk, as `pnpm bench:data` does on a larger scale. */
async function generate(db: Kysely<Database>, n: number) {
  await sql`insert into transports (charger_first_name, charger_last_name, vehicle_type_id, loading_point, unloading_point, product_label, status, created_by, created_at)
    select 'Driver', 'No' || g, (select min(id) from vehicle_types), (array['Lyon','Marseille','Dakar','Rabat'])[1 + g % 4] || ', terminal ' || g,
      'Paris, warehouse ' || g, (array['Steel coils','Timber','Cement bags'])[1 + g % 3],
      (array['PENDING','COMPLETED','ARCHIVED','IN_PROGRESS'])[1 + g % 4], (select array_agg(id order by id) from users)[1 + g % 5],
      now() - g * interval '1 minute'
    from generate_series(1, ${n}) g`.execute(db);
  await sql`insert into complaints (label, description, location, transport_id, created_by, created_at, updated_at)
    select 'Complaint ' || t.id, 'Late delivery of ' || t.product_label, 'Paris', t.id, t.created_by, t.created_at, t.created_at
    from transports t where not exists (select 1 from complaints c where c.transport_id = t.id) and t.id % 4 = 0`.execute(db);
  await sql`insert into forum_topics (title, content, author_id, last_message_at)
    select 'Topic about customs ' || g, 'Content ' || g, (select min(id) from users), now() - g * interval '1 minute'
    from generate_series(1, ${n / 4}) g`.execute(db);
  await sql`insert into forum_messages (topic_id, author_id, content, created_at)
    select t.id, t.author_id, 'Reply ' || g, now() - g * interval '1 minute'
    from generate_series(1, ${n / 5}) g join lateral (select id, author_id from forum_topics order by id desc offset g % 100 limit 1) t on true`.execute(
    db,
  );
  await sql`insert into actors (actor_role, first_name, last_name, email, created_at)
    select 'CUSTOMER', 'Customer' || g, (array['Lyon','Dakar','Rabat'])[1 + g % 3] || ' Trading', 'customer' || g || '@client.example', now() - g * interval '1 hour'
    from generate_series(1, ${n / 10}) g`.execute(db);
  await sql`with c as (select array_agg(id order by id) as ids, count(*)::int as k from actors where actor_role = 'CUSTOMER')
    update transports set customer_id = c.ids[1 + transports.id % c.k] from c where transports.id % 5 = 0`.execute(db);
  await sql`analyze`.execute(db);
  await sql`set local enable_seqscan = off`.execute(db);
}

/** The large tables a plan reads sequentially, and the plan. */
async function seqScans(db: Kysely<Database>, query: Compilable) {
  const { sql: text, parameters } = query.compile(db);
  const plan = await db.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${text}`, [...parameters]));
  const lines = plan.rows.map((r) => r['QUERY PLAN']);
  return {
    tables: lines.flatMap((l) => /Seq Scan on (\w+)/.exec(l)?.[1] ?? []).filter((name) => LARGE.includes(name)),
    plan: lines.join('\n'),
  };
}
type Compilable = { compile(db: Kysely<Database>): { sql: string; parameters: readonly unknown[] } };

const key = (column: string, type: SortKey['type'] = 'timestamptz'): SortKey => ({ column, type });

describe('list query plans at scale', () => {
  it('read the large tables through indexes only: every sort, filter, search, scope and deep page', async () => {
    const checked: string[] = [];
    await t.db
      .transaction()
      .execute(async (trx) => {
        await generate(trx, 10_000);
        const supervisor = await auth(trx, 'supervisor');
        const manager = await auth(trx, 'manager');
        const agent = await auth(trx, 'agent');
        const page = (keys: SortKey[], direction: 'asc' | 'desc' = 'desc', n = 1) => ({ keys, direction, page: n, limit: 10 });
        const tid = key('t.id', 'integer');
        const cid = key('c.id', 'integer');
        const cases: Array<[string, Compilable]> = [];
        const transports = (name: string, who: AuthContext, f: Parameters<typeof transportBase>[2], keys: SortKey[], n = 1) => {
          const base = transportBase(trx, who, f);
          cases.push(
            [`transports ${name}: page`, keysetIdsQuery(base, page(keys, 'desc', n))],
            [`transports ${name}: count`, cappedCount(base)],
          );
        };
        transports('supervisor', supervisor, {}, [key('t.created_at'), tid]);
        transports('agent', agent, {}, [key('t.created_at'), tid]);
        transports('team manager', manager, {}, [key('t.created_at'), tid]);
        // A team manager's page read member by member: each member's range of (created_by, created_at, id).
        const perMember = keysetIdsQuery(transportBase(trx, supervisor, { unloadingPoint: 'paris' }), {
          ...page([key('t.created_at'), tid]),
          perOwner: teamOwners(ownership(manager), 't.created_by'),
        });
        cases.push(['transports team manager, member by member: page', perMember]);
        expect(perMember.compile(trx).sql).toContain('cross join lateral');
        transports('by status', supervisor, {}, [key('t.status', 'text'), tid]);
        transports('by loading number', supervisor, {}, [key('t.loading_number', 'text'), tid]);
        transports('search', supervisor, { search: 'lyon' }, [key('t.created_at'), tid]);
        transports('status filter', supervisor, { status: 'PENDING' }, [key('t.created_at'), tid]);
        transports('page 500', supervisor, {}, [key('t.created_at'), tid], 500);
        const complaints = (name: string, f: Parameters<typeof complaintBase>[2], keys: SortKey[]) => {
          const base = complaintBase(trx, ownedBy(supervisor, 'c.created_by'), f);
          cases.push([`complaints ${name}: page`, keysetIdsQuery(base, page(keys))], [`complaints ${name}: count`, cappedCount(base)]);
        };
        complaints('default', {}, [key('c.created_at'), cid]);
        complaints('by updatedAt', {}, [key('c.updated_at'), cid]);
        complaints('search', { search: 'late' }, [key('c.created_at'), cid]);
        // An agent's complaints, theirs or assigned to them: two index ranges (migration 0010).
        for (const sort of ['c.created_at', 'c.updated_at']) {
          cases.push([
            `complaints mine or assigned by ${sort}: page`,
            keysetIdsQuery(complaintBase(trx, sql`true`, { status: 'PENDING' }), {
              ...page([key(sort), cid]),
              runs: ownedOrAssignedRuns(ownership(agent), 'c.created_by', 'c.assigned_to'),
            }),
          ]);
        }
        const topics = (name: string, search: string | undefined, keys: SortKey[]) => {
          const base = topicBase(trx, { page: 1, limit: 10, sortBy: 'recent', sortOrder: 'desc', ...(search ? { search } : {}) });
          cases.push(
            [`topics ${name}: page`, keysetIdsQuery(base, page([...keys, key('t.id', 'integer')]))],
            [`topics ${name}: count`, cappedCount(base)],
          );
        };
        topics('recent', undefined, [key('t.last_message_at')]);
        topics('popularity', undefined, [key('t.likes_count', 'integer'), key('t.views_count', 'integer')]);
        topics('search', 'customs', [key('t.last_message_at')]);
        const customers = (name: string, f: Parameters<typeof actorBase>[3]) => {
          const base = actorBase(trx, 'CUSTOMER', sql`true`, f);
          cases.push(
            [`customers ${name}: page`, base.clearSelect().select('a.id').limit(10)],
            [`customers ${name}: count`, cappedCount(base)],
          );
        };
        customers('newest', { sortBy: 'createdAt', sortOrder: 'DESC' });
        customers('by last name', { sortBy: 'lastName', sortOrder: 'ASC' });
        // Statistics: counters and index ranges, never an aggregation over a whole large table.
        cases.push(
          ['actor stats: top customers', topCustomersQuery(trx, supervisor, 5)],
          ["actor stats: a team's top customers", topCustomersQuery(trx, manager, 5)],
          ['forum stats: last 30 days', recentActivityQuery()],
        );

        for (const [name, query] of cases) {
          const { tables, plan } = await seqScans(trx, query);
          expect(tables, `${name}\n${plan}`).toEqual([]);
          checked.push(name);
        }
        throw ROLLBACK;
      })
      .catch((error: unknown) => {
        if (error !== ROLLBACK) throw error;
      });
    expect(checked).toHaveLength(38);
    const left = await t.db
      .selectFrom('forum_topics')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(left.n)).toBeLessThan(100);
    // Generating and analyzing the dataset on the embedded database takes tens of seconds on a busy machine.
  }, 120_000);
});
