import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { applyActions, createTransport, loadRefs, type Refs } from '../transports/fixtures.js';

const t = useTestApp();
let refs: Refs;
let since: string;
beforeAll(async () => {
  refs = await loadRefs(t);
  since = new Date().toISOString(); // the seeded rows are older: the period holds only this file's rows
  const a1 = await createTransport(t, refs, 'agent', { productQuantity: 10, averageUnitPrice: 100 }); // 1 000
  const a2 = await createTransport(t, refs, 'agent', { productQuantity: 2, averageUnitPrice: 50 }); // 100
  await createTransport(t, refs, 'agent2', { productQuantity: 1, averageUnitPrice: 7 });
  await createTransport(t, refs, 'manager', { productQuantity: 3, averageUnitPrice: 10 }); // 30
  await applyActions(t, a1.id, ['VALIDATE_1']);
  await applyActions(t, a2.id, ['VALIDATE', 'START']);
});

const own = async (user: 'agent' | 'agent2' | 'manager', query: Record<string, string> = { startDate: since }) =>
  t.call('getOwnReportStatistics', { token: await t.token(user), query });
const countOf = (list: { status: string; count: number }[], status: string) => list.find((e) => e.status === status)?.count;

describe('GET /trade/reports/statistics (getOwnReportStatistics)', () => {
  it("gives an agent the figures of their own records only (the specification's reports read (own))", async () => {
    const res = await own('agent');
    expect(res.body.message).toBe('Report statistics generated');
    const { startDate, endDate, transports, complaints } = res.body.result;
    expect({ startDate, endDate }).toEqual({ startDate: since, endDate: null });
    expect(transports).toMatchObject({ total: 2, awaitingLevel1: 0, awaitingLevel2: 1, totalProductValue: 1100 });
    expect([countOf(transports.byStatus, 'PENDING'), countOf(transports.byStatus, 'IN_PROGRESS')]).toEqual([1, 1]);
    expect(complaints).toMatchObject({ total: 0, resolvedCount: 0, averageResolutionHours: null, amountPaid: 0 });
    expect(Object.keys(res.body.result)).not.toContain('users');
    // What the figures count, read from the table.
    const rows = await t.db
      .selectFrom('transports')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('created_by', '=', refs.user('agent'))
      .where('created_at', '>=', new Date(since))
      .executeTakeFirstOrThrow();
    expect(Number(rows.n)).toBe(transports.total);

    const other = await own('agent2');
    expect(other.body.result.transports).toMatchObject({ total: 1, totalProductValue: 7 });
  });

  it("gives a team manager their own records here, not their team's", async () => {
    const res = await own('manager');
    expect(res.body.result.transports).toMatchObject({ total: 1, awaitingLevel1: 1, totalProductValue: 30 });
    const team = await t.call('getReportStatistics', { token: await t.token('manager'), query: { startDate: since } });
    expect(team.body.result.transports.total).toBe(3);
  });

  it('answers 400 for a period that ends before it starts, naming the parameters', async () => {
    const res = await own('agent', { startDate: '2026-02-01T00:00:00Z', endDate: '2026-01-01T00:00:00Z' });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(['querystring/startDate must not be after endDate']);
  });
});
