import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { expectInvalid, expectRoleRefused } from '../../support/expect.js';
import { createTransport, loadRefs, type Refs } from './fixtures.js';

const t = useTestApp();
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

const utcDay = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/** The expected figures, computed independently from the rows the stats cover. */
async function expected(creators: number[] | null) {
  let q = t.db.selectFrom('transports').select(['status', 'total_product_value', 'vehicle_type_id', 'created_at']);
  if (creators) q = q.where('created_by', 'in', creators);
  const rows = await q.execute();
  const byStatus: Record<string, number> = {
    PENDING: 0,
    VALIDATED: 0,
    IN_PROGRESS: 0,
    COMPLETED: 0,
    CANCELLED: 0,
    ON_HOLD: 0,
    ARCHIVED: 0,
  };
  for (const r of rows) byStatus[r.status]! += 1;
  const value = rows.reduce((sum, r) => sum + (r.total_product_value ?? 0), 0);
  return { rows, byStatus, value };
}

describe('GET /admin/transports/stats (getTransportStats)', () => {
  it('counts every transport for a supervisor: totals, statuses, vehicle types and days', async () => {
    await createTransport(t, refs, 'agent2', { vehicleTypeId: refs.vehicleType('Pickup'), totalProductValue: 1234.5 });
    const res = await t.call('getTransportStats', { token: await t.token('supervisor'), query: { days: 7 } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const stats = res.body.result;
    const { rows, byStatus, value } = await expected(null);
    expect(stats.days).toBe(7);
    expect(stats.total).toBe(rows.length);
    expect(stats.byStatus).toEqual(byStatus);
    expect(stats.totalProductValue).toBeCloseTo(value, 2);
    const counts = stats.byVehicleType.map((v: { count: number }) => v.count);
    expect(counts).toEqual([...counts].sort((a: number, b: number) => b - a));
    expect(counts.reduce((a: number, b: number) => a + b, 0)).toBe(rows.length);
    const pickup = stats.byVehicleType.find((v: { vehicleTypeId: number }) => v.vehicleTypeId === refs.vehicleType('Pickup'));
    expect(pickup).toEqual({
      vehicleTypeId: refs.vehicleType('Pickup'),
      name: 'Pickup',
      count: rows.filter((r) => r.vehicle_type_id === refs.vehicleType('Pickup')).length,
    });
    expect(stats.createdPerDay.map((d: { date: string }) => d.date)).toEqual([-6, -5, -4, -3, -2, -1, 0].map(utcDay));
    const today = stats.createdPerDay.at(-1);
    expect(today!.count).toBe(rows.filter((r) => new Date(r.created_at).toISOString().slice(0, 10) === utcDay(0)).length);
    expect(today!.count).toBeGreaterThanOrEqual(1);
  });

  it("limits a team manager to their team's transports", async () => {
    await createTransport(t, refs, 'agent', { totalProductValue: 500 });
    await createTransport(t, refs, 'agent2', { totalProductValue: 700 });
    const res = await t.call('getTransportStats', { token: await t.token('manager') });
    expect(res.status).toBe(200);
    const { rows, byStatus, value } = await expected([refs.user('agent'), refs.user('manager')]);
    expect(res.body.result.total).toBe(rows.length);
    expect(res.body.result.byStatus).toEqual(byStatus);
    expect(res.body.result.totalProductValue).toBeCloseTo(value, 2);
    expect(res.body.result.days).toBe(30);
    expect(res.body.result.createdPerDay).toHaveLength(30);
  });

  it('includes days without transports with 0, oldest first', async () => {
    // A transport of long ago only: the window of 1 day must still have today's entry.
    await t.db
      .insertInto('transports')
      .values({
        loading_number: sql<string>`transport_loading_number(now() - interval '100 days')`,
        charger_first_name: 'Old',
        charger_last_name: 'Trip',
        vehicle_type_id: refs.vehicleType('Pickup'),
        loading_point: 'Archive depot',
        created_by: refs.user('agent'),
        created_at: new Date(Date.now() - 100 * 86_400_000),
      })
      .execute();
    const res = await t.call('getTransportStats', { token: await t.token('admin'), query: { days: 365 } });
    expect(res.status).toBe(200);
    const days = res.body.result.createdPerDay as { date: string; count: number }[];
    expect(days).toHaveLength(365);
    expect(days[0]!.date).toBe(utcDay(-364));
    expect(days.find((d) => d.date === utcDay(-100))!.count).toBeGreaterThanOrEqual(1);
    expect(days.some((d) => d.count === 0)).toBe(true);
  });

  it('answers 400 for days outside 1-365 and 403 to an agent', async () => {
    const token = await t.token('supervisor');
    expectInvalid(await t.call('getTransportStats', { token, query: { days: 0 } }), 'querystring/days must be >= 1');
    expectInvalid(await t.call('getTransportStats', { token, query: { days: 366 } }), 'querystring/days must be <= 365');
    expectRoleRefused(await t.call('getTransportStats', { token: await t.token('agent') }), 'getTransportStats');
  });
});
