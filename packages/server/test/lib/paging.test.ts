import { type CompiledQuery, type SqlBool, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { COUNT_CAP, countCapped, fetchPage, keysetIdsQuery, type PerOwner, type SortKey } from '../../src/lib/paging.js';
import { shownMessagesOf } from '../../src/modules/forum/message-repository.js';
import { FILTER_COLUMNS, listBase as transportBase } from '../../src/modules/transports/repository.js';
import type { AuthContext } from '../../src/lib/identity.js';
import { useTestApp } from '../support/app.js';

const t = useTestApp();

const ids = (body: { result: { data: { id: number }[] } }) => body.result.data.map((d) => d.id);

describe('keyset paging (cursor) and the page cap', () => {
  it('walks the whole list with next_cursor, in the same order and rows as page numbers', async () => {
    const token = await t.token('supervisor');
    const all = await t.call('listTransports', { token, query: { limit: 100, sortBy: 'status', sortOrder: 'ASC' } });
    expect(all.body.result.meta).toMatchObject({ total_is_exact: true, next_cursor: null });
    const walked: number[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 50; i++) {
      const res = await t.call('listTransports', {
        token,
        query: { limit: 3, sortBy: 'status', sortOrder: 'ASC', ...(cursor ? { cursor } : {}) },
      });
      expect(res.status).toBe(200);
      walked.push(...ids(res.body));
      cursor = res.body.result.meta.next_cursor ?? undefined;
      if (!cursor) break;
    }
    expect(walked).toEqual(ids(all.body));
    const page2 = await t.call('listTransports', { token, query: { limit: 3, page: 2, sortBy: 'status', sortOrder: 'ASC' } });
    expect(ids(page2.body)).toEqual(walked.slice(3, 6));
  });

  it('pages complaints and forum topics by cursor as well', async () => {
    const token = await t.token('supervisor');
    const first = await t.call('listAdminComplaints', { token, query: { limit: 2 } });
    const next = await t.call('listAdminComplaints', { token, query: { limit: 2, cursor: first.body.result.meta.next_cursor! } });
    const both = await t.call('listAdminComplaints', { token, query: { limit: 4 } });
    expect([...ids(first.body), ...ids(next.body)]).toEqual(ids(both.body));
    const topics = await t.call('listForumTopics', { token, query: { limit: 1, sortBy: 'popularity' } });
    const after = await t.call('listForumTopics', {
      token,
      query: { limit: 1, sortBy: 'popularity', cursor: topics.body.result.meta.next_cursor! },
    });
    const two = await t.call('listForumTopics', { token, query: { limit: 2, sortBy: 'popularity' } });
    expect([...ids(topics.body), ...ids(after.body)]).toEqual(ids(two.body));
  });

  it('refuses a cursor of another sort or a forged one with 400 naming the cursor', async () => {
    const token = await t.token('supervisor');
    const first = await t.call('listTransports', { token, query: { limit: 1 } });
    const other = await t.call('listTransports', {
      token,
      query: { limit: 1, sortBy: 'status', cursor: first.body.result.meta.next_cursor! },
    });
    expect(other.status).toBe(400);
    expect(other.body.errors).toEqual(['querystring/cursor was handed out for another sortBy/sortOrder']);
    const forged = await t.call('listTransports', { token, query: { cursor: 'not-a-cursor' } });
    expect(forged.status).toBe(400);
    expect(forged.body.errors).toEqual(['querystring/cursor is not a cursor handed out by this list']);
  });

  it('refuses a page starting beyond row 10,000 with 400 pointing to the cursor', async () => {
    const res = await t.call('listTransports', { token: await t.token('supervisor'), query: { page: 1001, limit: 10 } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      'querystring/page must not start beyond row 10000: follow meta.next_cursor with the cursor parameter to read further',
    ]);
  });

  /** Transports `from`..`to` of a test's own, loaded at `<place> <n>` by the first user. */
  const insertTransportsAt = (place: string, from: number, to: number) =>
    sql`insert into transports (charger_first_name, charger_last_name, vehicle_type_id, loading_point, created_by)
      select 'Driver', 'No' || g, (select min(id) from vehicle_types), ${place} || ' ' || g, (select min(id) from users)
      from generate_series(${from}::int, ${to}::int) g`.execute(t.db);
  const deleteTransportsAt = (place: string) => sql`delete from transports where loading_point like ${`${place} %`}`.execute(t.db);

  it('counts the total exactly up to 1,000 matching rows and answers an estimate beyond', async () => {
    expect(COUNT_CAP).toBe(1000);
    const token = await t.token('supervisor');
    const insert = (from: number, to: number) => insertTransportsAt('Capcount terminal', from, to);
    const query = { loadingPoint: 'capcount', limit: 10 };
    await insert(1, 1000);
    try {
      const exact = await t.call('listTransports', { token, query });
      expect(exact.body.result.meta).toMatchObject({ total: 1000, total_pages: 100, total_is_exact: true });
      await insert(1001, 1001);
      const beyond = await t.call('listTransports', { token, query });
      expect(beyond.status).toBe(200);
      expect(beyond.body.result.meta.total_is_exact).toBe(false);
      expect(beyond.body.result.meta.total).toBeGreaterThanOrEqual(1001);
      expect(beyond.body.result.data).toHaveLength(10);
    } finally {
      await deleteTransportsAt('Capcount terminal');
    }
  });

  it("caps the total of lists read with their joins too (a topic's messages): exact up to 1,000, an estimate beyond", async () => {
    const token = await t.token('agent');
    const topic = await sql<{ id: number; author_id: number }>`select id, author_id from forum_topics
      where not is_hidden order by id limit 1`.execute(t.db);
    const { id, author_id } = topic.rows[0]!;
    const shown = async () => {
      const res = await t.call('listTopicMessages', { token, params: { id }, query: { limit: 5 } });
      expect(res.status).toBe(200);
      return res.body.result.meta;
    };
    const before = (await shown()).total;
    const insert = (n: number) =>
      sql`insert into forum_messages (topic_id, author_id, content, created_at, updated_at)
        select ${id}, ${author_id}, 'Capped count ' || g, now(), now() from generate_series(1, ${n}::int) g`.execute(t.db);
    await insert(1000 - before);
    try {
      expect(await shown()).toMatchObject({ total: 1000, total_pages: 200 });
      await insert(1);
      const beyond = await shown();
      expect(beyond.total).toBeGreaterThanOrEqual(1001);
      expect(beyond.total_pages).toBe(Math.ceil(beyond.total / 5));
      // The count reads at most COUNT_CAP + 1 of the joined rows, whatever the topic's size.
      const statements: string[] = [];
      const page = await fetchPage(shownMessagesOf(id, author_id, {}), 1, 5, recording(statements));
      expect(page.total).toBe(beyond.total);
      expect(page.rows).toHaveLength(5);
      // The whole-list count (before: `count(*) as "total"` over every joined row) is the capped one.
      const counts = statements.filter((text) => text.includes('select count(*)::int as n from (') || text.includes('as "total"'));
      expect(counts).toHaveLength(1);
      expect(counts[0]).toMatch(new RegExp(`limit ${COUNT_CAP + 1}\\) s$`));
    } finally {
      await sql`delete from forum_messages where topic_id = ${id} and content like 'Capped count %'`.execute(t.db);
    }
    expect((await shown()).total).toBe(before);
  });

  /** The database as countCapped sees it, recording each statement it sends in `statements`. */
  const recording = (statements: string[]) =>
    new Proxy(t.db, {
      get(target, property) {
        if (property === 'executeQuery') {
          return (query: CompiledQuery) => {
            statements.push(query.sql);
            return target.executeQuery(query);
          };
        }
        const value = Reflect.get(target, property, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });

  it('asks the planner for the estimate of the same count once, and again for other parameters', async () => {
    const statements: string[] = [];
    const db = recording(statements);
    await insertTransportsAt('Estimate yard', 1, 3);
    try {
      const base = (pattern: string) => t.db.selectFrom('transports').select('id').where('loading_point', 'ilike', pattern);
      expect(await countCapped(db, base('%estimate yard%'))).toEqual({ total: 3, exact: true });
      expect(await countCapped(db, base('%estimate yard%'))).toEqual({ total: 3, exact: true });
      expect(await countCapped(db, base('%estimate yard 2%'))).toEqual({ total: 1, exact: true });
      const explains = statements.filter((text) => text.startsWith('explain'));
      // One estimate per distinct count; every call still counts the rows.
      expect(explains).toHaveLength(2);
      expect(statements).toHaveLength(5);
    } finally {
      await deleteTransportsAt('Estimate yard');
    }
  });

  it('does not count again, for a minute, a list already found beyond 1,000 rows', async () => {
    const statements: string[] = [];
    const db = recording(statements);
    await insertTransportsAt('Beyondcap wharf', 1, 1001);
    try {
      const base = t.db.selectFrom('transports').select('id').where('loading_point', 'ilike', '%beyondcap wharf%');
      const first = await countCapped(db, base);
      expect(first.exact).toBe(false);
      expect(first.total).toBeGreaterThanOrEqual(1001);
      expect(statements.filter((text) => text.startsWith('explain'))).toHaveLength(1);
      expect(statements.filter((text) => text.includes('count(*)'))).toHaveLength(1);
      const sent = statements.length;
      expect(await countCapped(db, base)).toEqual(first);
      // Neither the estimate nor the rows were asked for again.
      expect(statements).toHaveLength(sent);
    } finally {
      await deleteTransportsAt('Beyondcap wharf');
    }
  });

  it('answers the total of the same filtered list afresh after every write to the table', async () => {
    const token = await t.token('supervisor');
    const query = { loadingPoint: 'totalcache', limit: 2 };
    let inserted = 0;
    const insert = async (n: number) => {
      await insertTransportsAt('Totalcache quay', inserted + 1, inserted + n);
      inserted += n;
    };
    const total = async () => (await t.call('listTransports', { token, query })).body.result.meta.total;
    try {
      await insert(3);
      expect(await total()).toBe(3);
      expect(await total()).toBe(3);
      await insert(1);
      expect(await total()).toBe(4);
      await sql`update transports set loading_point = 'Relocated quay' where id = (select min(id) from transports where loading_point like 'Totalcache quay %')`.execute(
        t.db,
      );
      expect(await total()).toBe(3);
      await deleteTransportsAt('Totalcache quay');
      expect(await total()).toBe(0);
    } finally {
      await sql`delete from transports where loading_point = 'Relocated quay' or loading_point like 'Totalcache quay %'`.execute(t.db);
    }
  });

  it("reads a team manager's newest transports member by member: the same rows, order, pages and cursors as the whole team", async () => {
    const manager = await t.token('manager');
    const supervisor = await t.token('supervisor');
    const team = await sql<{ id: number; organization_id: number }>`select u.id, u.organization_id from users u
      where u.organization_id in (with recursive s(id) as (select organization_id from users where username = 'manager'
        union select o.id from organizations o join s on o.parent_id = s.id) select id from s) order by u.id`.execute(t.db);
    const members = team.rows.map((r) => r.id);
    expect(members.length).toBeGreaterThan(1);
    const organizationId = (await sql<{ o: number }>`select organization_id as o from users where username = 'manager'`.execute(t.db))
      .rows[0]!.o;
    // Several members, equal creation times (the id breaks ties), and a point filter some rows pass.
    await sql`insert into transports (charger_first_name, charger_last_name, vehicle_type_id, loading_point, unloading_point, created_by, created_at)
      select 'Driver', 'Member' || g, (select min(id) from vehicle_types), 'Memberwalk quay ' || g,
        case when g % 3 = 0 then 'Memberwalk Dakar' else 'Memberwalk Lyon' end, (${members}::int[])[1 + g % ${members.length}::int],
        timestamptz '2026-01-01' + (g / 4) * interval '1 minute'
      from generate_series(1, 60) g`.execute(t.db);
    try {
      for (const filter of [{ loadingPoint: 'memberwalk' }, { unloadingPoint: 'memberwalk dakar' }]) {
        const whole = await t.call('listAdminTransports', { token: supervisor, query: { ...filter, organizationId, limit: 100 } });
        const expected = ids(whole.body);
        expect(expected.length).toBeGreaterThan(10);
        const mine = await t.call('listTransports', { token: manager, query: { ...filter, limit: 100 } });
        expect(ids(mine.body)).toEqual(expected);
        expect(mine.body.result.meta.total).toBe(whole.body.result.meta.total);
        const page3 = await t.call('listTransports', { token: manager, query: { ...filter, limit: 4, page: 3 } });
        expect(ids(page3.body)).toEqual(expected.slice(8, 12));
        const walked: number[] = [];
        let cursor: string | undefined;
        for (let i = 0; i < 40; i++) {
          const res = await t.call('listTransports', { token: manager, query: { ...filter, limit: 3, ...(cursor ? { cursor } : {}) } });
          walked.push(...ids(res.body));
          cursor = res.body.result.meta.next_cursor ?? undefined;
          if (!cursor) break;
        }
        expect(walked).toEqual(expected);
        const ascending = await t.call('listTransports', { token: manager, query: { ...filter, limit: 100, sortOrder: 'ASC' } });
        expect(ids(ascending.body)).toEqual([...expected].reverse());
        // Both plans of the statement, member by member or the whole order, whatever the team's share decides here.
        const everyone = { accessLevel: 'supervisor', userId: 0, organizationId: null } as unknown as AuthContext;
        const keys: SortKey[] = [
          { column: 't.created_at', type: 'timestamptz' },
          { column: 't.id', type: 'integer' },
        ];
        for (const [worthIt, columns] of [
          [undefined, undefined],
          [true, undefined],
          [false, undefined],
          [true, FILTER_COLUMNS],
        ] as const) {
          const base = transportBase(t.db, everyone, { ...filter, organizationId });
          const perOwner: PerOwner = {
            column: 't.created_by',
            owners: () => sql`${members}::int[]`,
            ...(worthIt === undefined ? {} : { worthIt: () => sql<SqlBool>`${sql.lit(worthIt)}` }),
            ...(columns ? { columns: [...columns] } : {}),
          };
          const pageOf = async (request: { page: number; limit: number; cursor?: string }) =>
            (await t.db.executeQuery(keysetIdsQuery(base, { keys, direction: 'desc', ...request, perOwner }).compile(t.db))).rows.map((r) =>
              Number(r.k1),
            );
          expect(await pageOf({ page: 1, limit: 100 }), String(worthIt)).toEqual(expected);
          expect(await pageOf({ page: 3, limit: 4 }), String(worthIt)).toEqual(expected.slice(8, 12));
        }
      }
      // Every filter of the list at once, read member by member: the rows carried through the fence
      // hold every column a filter reads (FILTER_COLUMNS), or the statement fails.
      const dakar = await sql<{ vehicle_type_id: number; status: string }>`select vehicle_type_id, status from transports
        where unloading_point = 'Memberwalk Dakar' limit 1`.execute(t.db);
      const every = {
        unloadingPoint: 'memberwalk dakar',
        loadingPoint: 'quay',
        search: 'memberwalk',
        status: dakar.rows[0]!.status,
        vehicleTypeId: dakar.rows[0]!.vehicle_type_id,
        startDate: '2025-12-31T00:00:00.000Z',
        endDate: '2026-01-02T00:00:00.000Z',
        limit: 100,
      };
      const whole = await t.call('listAdminTransports', { token: supervisor, query: { ...every, organizationId } });
      expect(ids(whole.body).length).toBeGreaterThan(10);
      const mine = await t.call('listTransports', { token: manager, query: every });
      expect(ids(mine.body)).toEqual(ids(whole.body));
      const byMember = { ...every, createdBy: members[0]! };
      const oneMember = await t.call('listAdminTransports', { token: supervisor, query: byMember });
      expect(ids(oneMember.body).length).toBeGreaterThan(0);
      expect(ids((await t.call('listAdminTransports', { token: manager, query: byMember })).body)).toEqual(ids(oneMember.body));
      // No generated row has a customer: the filter's column is read all the same, and nothing passes.
      const customer = await sql<{ id: number }>`select min(id) as id from actors where actor_role = 'CUSTOMER'`.execute(t.db);
      const none = await t.call('listTransports', { token: manager, query: { ...every, customerId: customer.rows[0]!.id } });
      expect(none.status).toBe(200);
      expect(ids(none.body)).toEqual([]);
    } finally {
      await deleteTransportsAt('Memberwalk quay');
    }
  });

  it('turns the sort keys of an offset page into text for the page rows only, not for the rows skipped', async () => {
    const everyone = { accessLevel: 'supervisor', userId: 0, organizationId: null } as unknown as AuthContext;
    const keys: SortKey[] = [
      { column: 't.created_at', type: 'timestamptz' },
      { column: 't.id', type: 'integer' },
    ];
    const base = transportBase(t.db, everyone, {});
    const deep = keysetIdsQuery(base, { keys, direction: 'desc', page: 3, limit: 2 }).compile(t.db);
    // The text conversions sit outside the subquery that skips the rows.
    expect(deep.sql).toMatch(/^select "page"\."s0"::text as "k0", "page"\."s1"::text as "k1" from \(select .* offset \$\d+\) as "page"/);
    const all = await t.db.executeQuery(keysetIdsQuery(base, { keys, direction: 'desc', page: 1, limit: 10 }).compile(t.db));
    const third = await t.db.executeQuery(deep);
    expect(third.rows).toEqual(all.rows.slice(4, 6));
  });

  it("reads an agent's complaints (theirs or assigned to them) as two index ranges: the same rows, order, pages and cursors", async () => {
    const agent = await t.token('agent');
    const me = (await sql<{ id: number }>`select id from users where username = 'agent'`.execute(t.db)).rows[0]!.id;
    const other = (await sql<{ id: number }>`select id from users where username = 'agent2'`.execute(t.db)).rows[0]!.id;
    // Mine, assigned to me, mine and assigned to me (once only), and another agent's; equal update times.
    await sql`insert into transports (charger_first_name, charger_last_name, vehicle_type_id, loading_point, created_by)
      select 'Driver', 'Runwalk' || g, (select min(id) from vehicle_types), 'Runwalk quay ' || g, ${me}::int from generate_series(1, 40) g`.execute(
      t.db,
    );
    await sql`insert into complaints (label, description, location, transport_id, created_by, assigned_to, created_at, updated_at)
      select 'Runwalk ' || g, 'Late', 'Paris', tr.id, case when g % 4 in (0, 1) then ${me}::int else ${other}::int end,
        case when g % 4 in (1, 2) then ${me}::int end,
        timestamptz '2026-01-01' + (g / 3) * interval '1 minute', timestamptz '2026-02-01' - (g / 3) * interval '1 minute'
      from (select id, row_number() over (order by id) as g from transports where loading_point like 'Runwalk quay %') tr`.execute(t.db);
    try {
      for (const sortBy of ['createdAt', 'updatedAt'] as const) {
        const order = sortBy === 'createdAt' ? sql`created_at desc, id desc` : sql`updated_at desc, id desc`;
        const expected = (
          await sql<{
            id: number;
          }>`select id from complaints where label like 'Runwalk %' and (created_by = ${me}::int or assigned_to = ${me}::int)
            order by ${order}`.execute(t.db)
        ).rows.map((r) => r.id);
        expect(expected).toHaveLength(30);
        const all = await t.call('listComplaints', { token: agent, query: { label: 'runwalk', sortBy, limit: 100 } });
        expect(ids(all.body)).toEqual(expected);
        expect(all.body.result.meta.total).toBe(30);
        const page3 = await t.call('listComplaints', { token: agent, query: { label: 'runwalk', sortBy, limit: 4, page: 3 } });
        expect(ids(page3.body)).toEqual(expected.slice(8, 12));
        const walked: number[] = [];
        let cursor: string | undefined;
        for (let i = 0; i < 20; i++) {
          const res = await t.call('listComplaints', {
            token: agent,
            query: { label: 'runwalk', sortBy, limit: 7, ...(cursor ? { cursor } : {}) },
          });
          walked.push(...ids(res.body));
          cursor = res.body.result.meta.next_cursor ?? undefined;
          if (!cursor) break;
        }
        expect(walked).toEqual(expected);
        const ascending = await t.call('listComplaints', {
          token: agent,
          query: { label: 'runwalk', sortBy, sortOrder: 'ASC', limit: 100 },
        });
        expect(ids(ascending.body)).toEqual([...expected].reverse());
      }
    } finally {
      await sql`delete from complaints where label like 'Runwalk %'`.execute(t.db);
      await deleteTransportsAt('Runwalk quay');
    }
  });
});
