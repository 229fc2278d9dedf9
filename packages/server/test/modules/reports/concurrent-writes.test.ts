import { type Kysely, sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/db/schema.js';
import { type DemoUser, useTestApp } from '../../support/app.js';
import { applyActions, createTransport, loadRefs, type Refs } from '../transports/fixtures.js';

/*
 * Statistics are appended by writers and folded later (migration 0016). These tests write through
 * the API from many clients at once and compare every figure the statistics operations answer with
 * a recount of the rows, before and after a fold; on PostgreSQL they also hold one writer's
 * transaction open and check that another writer of the same day, status and type commits meanwhile.
 */

const t = useTestApp();
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

const WRITERS: DemoUser[] = ['agent', 'agent2', 'manager', 'supervisor', 'admin'];
const today = () => new Date().toISOString().slice(0, 10);

/** Runs `tasks` with at most `clients` in flight at once. */
async function concurrently<T>(clients: number, tasks: Array<() => Promise<T>>): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < tasks.length) {
        const i = next++;
        results[i] = await tasks[i]!();
      }
    }),
  );
  return results;
}

/** What the statistics should say, recounted from the rows. */
async function recount(db: Kysely<Database>) {
  const transports = await db
    .selectFrom('transports')
    .select(['status', 'vehicle_type_id', 'total_product_value', 'created_at', 'created_by'])
    .execute();
  const complaints = await db.selectFrom('complaints').select(['status', 'complaint_type_id', 'created_by']).execute();
  const tally = <R>(rows: R[], key: (r: R) => string | number | null) => {
    const m = new Map<string | number | null, number>();
    for (const r of rows) m.set(key(r), (m.get(key(r)) ?? 0) + 1);
    return m;
  };
  return {
    transports,
    complaints,
    transportStatus: tally(transports, (r) => r.status),
    vehicleTypes: tally(transports, (r) => r.vehicle_type_id),
    complaintStatus: tally(complaints, (r) => r.status),
    complaintTypes: tally(complaints, (r) => r.complaint_type_id),
    value: transports.reduce((s, r) => s + (r.total_product_value ?? 0), 0),
    createdToday: transports.filter((r) => new Date(r.created_at).toISOString().slice(0, 10) === today()).length,
    transportsBy: tally(transports, (r) => r.created_by),
    complaintsBy: tally(complaints, (r) => r.created_by),
  };
}

/** Every statistics answer compared with a recount; `days` varies so that no cached answer is reused. */
async function expectExact(days: number) {
  const want = await recount(t.db);
  const supervisor = await t.token('supervisor');
  const admin = await t.token('admin');

  const ts = await t.call('getTransportStats', { token: supervisor, query: { days } });
  expect(ts.status, JSON.stringify(ts.body)).toBe(200);
  expect(ts.body.result.total).toBe(want.transports.length);
  for (const [status, n] of Object.entries(ts.body.result.byStatus)) expect(n, status).toBe(want.transportStatus.get(status) ?? 0);
  expect(ts.body.result.totalProductValue).toBeCloseTo(want.value, 2);
  expect(ts.body.result.createdPerDay.at(-1)).toEqual({ date: today(), count: want.createdToday });
  for (const v of ts.body.result.byVehicleType) expect(v.count, v.name).toBe(want.vehicleTypes.get(v.vehicleTypeId));

  const cs = await t.call('getComplaintStats', { token: supervisor, query: { days } });
  expect(cs.status, JSON.stringify(cs.body)).toBe(200);
  expect(cs.body.result.total).toBe(want.complaints.length);
  for (const s of cs.body.result.byStatus) expect(s.count, s.status).toBe(want.complaintStatus.get(s.status) ?? 0);
  for (const c of cs.body.result.byType) expect(c.count, c.name ?? 'none').toBe(want.complaintTypes.get(c.complaintTypeId));

  // The report over a period that starts `days` ago: whole days from the daily roll-ups, per user.
  const startDate = new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
  const report = await t.call('getReportStatistics', { token: supervisor, query: { startDate: `${startDate}T00:00:00Z` } });
  expect(report.status, JSON.stringify(report.body)).toBe(200);
  const since = (r: { created_at: Date | string }) => new Date(r.created_at).toISOString().slice(0, 10) >= startDate;
  const recent = want.transports.filter(since);
  expect(report.body.result.transports.total).toBe(recent.length);
  for (const u of report.body.result.users) {
    expect(u.transportsCreated, u.username).toBe(recent.filter((r) => r.created_by === u.userId).length);
  }

  const vehicleTypes = await t.call('listConfigVehicleTypes', { token: admin, query: { limit: 100 } });
  expect(vehicleTypes.status, JSON.stringify(vehicleTypes.body)).toBe(200);
  for (const v of vehicleTypes.body.result.data) expect(v.usageCount, v.name).toBe(want.vehicleTypes.get(v.id) ?? 0);
  const complaintTypes = await t.call('listConfigComplaintTypes', { token: admin, query: { limit: 100 } });
  expect(complaintTypes.status, JSON.stringify(complaintTypes.body)).toBe(200);
  for (const c of complaintTypes.body.result.data) expect(c.usageCount, c.name).toBe(want.complaintTypes.get(c.id) ?? 0);
}

const pendingRows = async () =>
  Number(
    (
      await sql<{
        n: number;
      }>`select (select count(*) from transport_day_counts_delta) + (select count(*) from counter_deltas) as n`.execute(t.db)
    ).rows[0]!.n,
  );

describe('statistics under concurrent writers', () => {
  it('equal a recount after concurrent creates, status changes and deletes, before and after folding', async () => {
    await t.app.foldStatisticsOnce();
    const types = await t.db.selectFrom('vehicle_types').select('id').where('is_active', '=', true).execute();
    const complaintTypes = await t.db.selectFrom('complaint_types').select('id').where('is_active', '=', true).execute();
    // Round 1: 40 transports by five users on every vehicle type, 20 complaints, from 16 clients.
    const created = await concurrently(16, [
      ...Array.from({ length: 40 }, (_, i) => async () => {
        const user = WRITERS[i % WRITERS.length]!;
        const transport = await createTransport(t, refs, user, {
          vehicleTypeId: types[i % types.length]!.id,
          totalProductValue: 100 + i / 4,
        });
        return { id: transport.id, user };
      }),
    ]);
    const complaintIds = await concurrently(
      16,
      created.slice(0, 20).map(({ id, user }, i) => async () => {
        const res = await t.call('createComplaint', {
          token: await t.token(user),
          body: { transportId: id, label: `Damaged load ${i}`, complaintTypeId: complaintTypes[i % complaintTypes.length]!.id },
        });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        return res.body.result.id as number;
      }),
    );
    expect(await pendingRows()).toBeGreaterThan(0);
    await expectExact(7);

    // Round 2, all at once: validations and rejections, complaint status changes, deletes of transports without complaints.
    const supervisor = await t.token('supervisor');
    const admin = await t.token('admin');
    await concurrently(16, [
      ...created.slice(0, 10).map(
        ({ id }) =>
          () =>
            applyActions(t, id, ['VALIDATE']),
      ),
      ...created.slice(10, 20).map(
        ({ id }) =>
          () =>
            applyActions(t, id, ['REJECT']),
      ),
      ...complaintIds.slice(0, 10).map((id) => async () => {
        const res = await t.call('changeComplaintStatus', { token: supervisor, params: { id }, payload: { status: 'IN_PROGRESS' } });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
      }),
      ...created.slice(20, 40).map(({ id }) => async () => {
        const res = await t.call('deleteAdminTransport', { token: admin, params: { id } });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
      }),
    ]);
    await expectExact(8);

    expect(await t.app.foldStatisticsOnce()).toBeGreaterThan(0);
    expect(await pendingRows()).toBe(0);
    await expectExact(9);
  }, 120_000);

  // PGlite is one connection: two transactions cannot be open at once there.
  it.runIf(Boolean(process.env.DATABASE_URL))(
    'lets a writer of the same day, status, vehicle type, complaint type and forum category commit while another is still open',
    async () => {
      const [agent, agent2] = [refs.user('agent'), refs.user('agent2')];
      const vehicleTypeId = refs.vehicleType('Semi-trailer truck');
      const complaintType = await t.db.selectFrom('complaint_types').select('id').orderBy('id').executeTakeFirstOrThrow();
      // Two topics of one category: the forum counters are per category.
      const topicA = await t.db
        .selectFrom('forum_topics')
        .select(['id', 'category_id', 'author_id'])
        .where('category_id', 'is not', null)
        .orderBy('id')
        .executeTakeFirstOrThrow();
      const topicB = await t.db
        .insertInto('forum_topics')
        .values({
          title: 'Held open as well',
          content: 'A second topic of the category',
          author_id: topicA.author_id,
          category_id: topicA.category_id,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const write = async (trx: Kysely<Database>, userId: number, topicId: number) => {
        const { id } = await trx
          .insertInto('transports')
          .values({
            charger_first_name: 'Held',
            charger_last_name: 'Open',
            vehicle_type_id: vehicleTypeId,
            loading_point: 'Lyon',
            created_by: userId,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        await trx
          .insertInto('complaints')
          .values({ label: 'Held open', transport_id: id, created_by: userId, complaint_type_id: complaintType.id })
          .execute();
        await trx.insertInto('forum_messages').values({ topic_id: topicId, author_id: userId, content: 'Held open' }).execute();
      };
      const before = await recount(t.db);

      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let written!: () => void;
      const firstWritten = new Promise<void>((resolve) => {
        written = resolve;
      });
      const first = t.db.transaction().execute(async (trx) => {
        await write(trx, agent, topicA.id);
        written();
        await held;
      });
      await firstWritten;
      // Before 0016 this one waited on the first's counter rows (the same day, status and types) until it committed.
      const second = await t.db
        .transaction()
        .execute(async (trx) => {
          await sql`set local lock_timeout = '3s'`.execute(trx);
          await write(trx, agent2, topicB.id);
          return 'committed';
        })
        .catch((error: Error) => error.message);
      release();
      await first;
      expect(second).toBe('committed');

      const after = await recount(t.db);
      expect(after.transports.length).toBe(before.transports.length + 2);
      expect(after.complaintTypes.get(complaintType.id)).toBe((before.complaintTypes.get(complaintType.id) ?? 0) + 2);
      await expectExact(10);
    },
  );
});
