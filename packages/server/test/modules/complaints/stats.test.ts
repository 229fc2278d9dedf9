import { beforeAll, describe, expect, it } from 'vitest';
import { type DemoUser, useTestApp } from '../../support/app.js';
import { fileComplaint, loadRefs, moveTo, type Refs } from './fixtures.js';

const t = useTestApp();
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

interface Stats {
  total: number;
  byStatus: { status: string; count: number }[];
  byType: { complaintTypeId: number | null; name: string | null; count: number }[];
  byCountry: { countryId: number | null; name: string | null; count: number }[];
  averageResolutionHours: number | null;
  days: number;
  createdPerDay: { date: string; count: number }[];
}

async function stats(user: DemoUser, days?: number): Promise<Stats> {
  const res = await t.call('getComplaintStats', { token: await t.token(user), query: days === undefined ? {} : { days } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.result;
}
const statusCount = (s: Stats, status: string) => s.byStatus.find((b) => b.status === status)!.count;
const typeCount = (s: Stats, id: number | null) => s.byType.find((b) => b.complaintTypeId === id)?.count ?? 0;

describe('GET /admin/complaints/stats (getComplaintStats)', () => {
  it('counts by status, type and country, averages resolution time and counts per day', async () => {
    const before = await stats('supervisor');
    // the seed: four complaints in France, one resolved ten hours after its creation
    expect(before.total).toBe(4);
    expect(before.byStatus.map((b) => b.status)).toEqual([
      'PENDING',
      'IN_PROGRESS',
      'UNDER_REVIEW',
      'ESCALATED',
      'RESOLVED',
      'REJECTED',
      'REOPENED',
      'CLOSED',
    ]);
    expect(before.byStatus.reduce((n, b) => n + b.count, 0)).toBe(before.total);
    expect(before.byCountry).toEqual([{ countryId: expect.any(Number), name: 'France', count: 4 }]);
    expect(before.averageResolutionHours).toBe(10);
    expect(before.days).toBe(30);
    expect(before.createdPerDay).toHaveLength(30);
    expect(before.createdPerDay.reduce((n, d) => n + d.count, 0)).toBe(4);

    const damaged = refs.complaintType('Damaged goods');
    const fast = await fileComplaint(t, refs, 'agent', { complaintTypeId: damaged });
    await moveTo(t, fast.id, ['IN_PROGRESS', 'RESOLVED']);
    await fileComplaint(t, refs, 'agent2');

    const after = await stats('supervisor', 7);
    expect(after.total).toBe(before.total + 2);
    expect(statusCount(after, 'RESOLVED')).toBe(statusCount(before, 'RESOLVED') + 1);
    expect(statusCount(after, 'PENDING')).toBe(statusCount(before, 'PENDING') + 1);
    expect(statusCount(after, 'CLOSED')).toBe(0);
    expect(typeCount(after, damaged)).toBe(typeCount(before, damaged) + 1);
    expect(typeCount(after, null)).toBe(1);
    expect(after.byType[0]).toEqual({ complaintTypeId: damaged, name: 'Damaged goods', count: 3 });
    for (let i = 1; i < after.byType.length; i++) expect(after.byType[i - 1]!.count).toBeGreaterThanOrEqual(after.byType[i]!.count);
    expect(after.averageResolutionHours).toBeCloseTo(5, 1);

    const today = new Date().toISOString().slice(0, 10);
    expect(after.days).toBe(7);
    expect(after.createdPerDay).toHaveLength(7);
    expect(after.createdPerDay.at(-1)).toEqual({ date: today, count: 2 });
    const dates = after.createdPerDay.map((d) => d.date);
    expect(dates).toEqual([...dates].sort());
    // the seeded complaint of three days ago is in the window; those of 8, 11 and 14 days ago are not
    expect(after.createdPerDay.reduce((n, d) => n + d.count, 0)).toBe(3);
  });

  it('limits a team manager to the complaints of the subtree', async () => {
    const before = await stats('manager');
    await fileComplaint(t, refs, 'agent2');
    expect((await stats('manager')).total).toBe(before.total);
    await fileComplaint(t, refs, 'agent');
    const after = await stats('manager');
    expect(after.total).toBe(before.total + 1);
    expect(after.total).toBeLessThan((await stats('admin')).total);
  });

  it('answers 400 for days out of range and 403 for agents', async () => {
    const invalid = await t.call('getComplaintStats', { token: await t.token('supervisor'), query: { days: 366 } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors).toEqual(['querystring/days must be <= 365']);
    expect((await t.call('getComplaintStats', { token: await t.token('agent') })).status).toBe(403);
  });
});
