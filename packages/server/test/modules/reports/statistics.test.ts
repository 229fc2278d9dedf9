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
  await createTransport(t, refs, 'agent2', { productQuantity: 1, averageUnitPrice: 7 }); // another team
  await applyActions(t, a1.id, ['VALIDATE_1']);
  await applyActions(t, a2.id, ['VALIDATE', 'START']);
});

const statistics = async (user: 'agent' | 'manager' | 'supervisor' | 'admin', query: Record<string, string> = { startDate: since }) =>
  t.call('getReportStatistics', { token: await t.token(user), query });
const countOf = (list: { status: string; count: number }[], status: string) => list.find((e) => e.status === status)?.count;

describe('GET /admin/reports/statistics (getReportStatistics)', () => {
  it("gives a team manager their team's figures, with the validation levels waiting", async () => {
    const res = await statistics('manager');
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Report statistics generated');
    const { scope, startDate, endDate, transports, complaints, users } = res.body.result;
    expect({ scope, startDate, endDate }).toEqual({ scope: 'TEAM', startDate: since, endDate: null });
    expect(transports).toMatchObject({ total: 2, awaitingLevel1: 0, awaitingLevel2: 1, totalProductValue: 1100 });
    expect(countOf(transports.byStatus, 'PENDING')).toBe(1);
    expect(countOf(transports.byStatus, 'IN_PROGRESS')).toBe(1);
    expect(transports.byStatus).toHaveLength(7);
    expect(complaints).toEqual(expect.objectContaining({ total: 0, resolvedCount: 0, averageResolutionHours: null, amountPaid: 0 }));
    expect(users).toEqual([
      { userId: refs.user('agent'), username: 'agent', transportsCreated: 2, complaintsCreated: 0, complaintsResolved: 0 },
    ]);
  });

  it('gives a supervisor the global figures', async () => {
    const res = await statistics('supervisor');
    expect(res.body.result).toMatchObject({
      scope: 'GLOBAL',
      transports: { total: 3, awaitingLevel1: 1, awaitingLevel2: 1, totalProductValue: 1107 },
    });
    expect(res.body.result.users.map((u: { username: string }) => u.username)).toEqual(['agent', 'agent2']);
  });

  it('counts complaints with their resolution, and the user who resolved them', async () => {
    const transport = await createTransport(t, refs, 'agent');
    const filed = await t.call('createComplaint', {
      token: await t.token('agent'),
      body: { transportId: transport.id, label: 'Scratched coils', amountPaid: 250 },
    });
    const id = filed.body.result.id;
    for (const status of ['IN_PROGRESS', 'RESOLVED']) {
      await t.call('changeComplaintStatus', { token: await t.token('manager'), params: { id }, payload: { status } });
    }
    const res = await statistics('manager');
    expect(res.body.result.complaints).toMatchObject({ total: 1, resolvedCount: 1, amountPaid: 250, averageResolutionHours: 0 });
    expect(countOf(res.body.result.complaints.byStatus, 'RESOLVED')).toBe(1);
    expect(res.body.result.users).toEqual(
      expect.arrayContaining([
        { userId: refs.user('manager'), username: 'manager', transportsCreated: 0, complaintsCreated: 0, complaintsResolved: 1 },
      ]),
    );
  });

  it('covers all time without a period, and nothing in a period before the seed', async () => {
    const all = await statistics('supervisor', {});
    expect(all.body.result.transports.total).toBeGreaterThan(4);
    const none = await statistics('supervisor', { startDate: '2000-01-01T00:00:00Z', endDate: '2000-12-31T23:59:59Z' });
    expect(none.body.result).toMatchObject({ transports: { total: 0 }, complaints: { total: 0 }, users: [] });
  });

  it('answers 400 for a period that ends before it starts or a malformed date, and 403 to an agent', async () => {
    const reversed = await statistics('admin', { startDate: '2026-02-01T00:00:00Z', endDate: '2026-01-01T00:00:00Z' });
    expect(reversed.status).toBe(400);
    expect(reversed.body.errors).toEqual(['querystring/startDate must not be after endDate']);
    expect((await statistics('admin', { startDate: 'yesterday' })).status).toBe(400);
    const agent = await statistics('agent');
    expect(agent.status).toBe(403);
    expect(agent.body.errors).toEqual({ code: 'FORBIDDEN', requiredRoles: ['team_manager', 'supervisor', 'admin', 'super_admin'] });
  });

  it('counts the same rows whatever the period cuts: whole months, whole days, partial days, one instant', async () => {
    // Rows moved far back in time (the triggers move their roll-ups with them): one just before a
    // month, one at its first instant, one in its middle, one in the next month.
    const at = ['2001-01-31T23:00:00.000Z', '2001-02-01T00:00:00.000Z', '2001-02-15T12:00:00.000Z', '2001-03-01T10:00:00.000Z'];
    const ids: number[] = [];
    for (const value of [5, 7, 11, 13])
      ids.push((await createTransport(t, refs, 'agent', { productQuantity: 1, averageUnitPrice: value })).id);
    for (const [i, id] of ids.entries())
      await t.db
        .updateTable('transports')
        .set({ created_at: new Date(at[i]!) })
        .where('id', '=', id)
        .execute();
    const filed = await t.call('createComplaint', {
      token: await t.token('agent'),
      body: { transportId: ids[2]!, label: 'Dented crates', amountPaid: 40 },
    });
    const complaintId = filed.body.result.id;
    for (const status of ['IN_PROGRESS', 'RESOLVED']) {
      await t.call('changeComplaintStatus', { token: await t.token('manager'), params: { id: complaintId }, payload: { status } });
    }
    await t.db
      .updateTable('complaints')
      .set({ created_at: new Date(at[2]!) })
      .where('id', '=', complaintId)
      .execute();
    await t.db
      .updateTable('complaint_status_history')
      .set({ created_at: new Date('2001-02-20T08:00:00.000Z') })
      .where('complaint_id', '=', complaintId)
      .execute();

    const cases: Array<[string, string, number[]]> = [
      ['2001-01-31T22:00:00.000Z', '2001-03-01T09:59:59.000Z', [0, 1, 2]],
      ['2001-01-31T23:00:00.000Z', '2001-03-01T10:00:00.000Z', [0, 1, 2, 3]],
      ['2001-02-01T00:00:00.001Z', '2001-02-28T23:59:59.999Z', [2]],
      ['2001-02-01T00:00:00.000Z', '2001-02-28T23:59:59.999Z', [1, 2]],
      ['2001-02-15T12:00:00.000Z', '2001-02-15T12:00:00.000Z', [2]],
      ['2000-06-01T00:00:00.000Z', '2001-12-31T23:59:59.999Z', [0, 1, 2, 3]],
      ['2001-02-16T00:00:00.000Z', '2001-02-28T23:59:59.999Z', []],
    ];
    for (const user of ['supervisor', 'manager'] as const) {
      for (const [startDate, endDate, expected] of cases) {
        const { transports, complaints, users } = (await statistics(user, { startDate, endDate })).body.result;
        const values = [5, 7, 11, 13];
        const withComplaint = expected.includes(2);
        const resolvedIn =
          Date.parse(startDate) <= Date.parse('2001-02-20T08:00:00.000Z') && Date.parse('2001-02-20T08:00:00.000Z') <= Date.parse(endDate);
        const label = `${user} ${startDate} - ${endDate}`;
        expect({ label, total: transports.total, value: transports.totalProductValue }).toEqual({
          label,
          total: expected.length,
          value: expected.reduce((sum, i) => sum + values[i]!, 0),
        });
        expect({ label, complaints: complaints.total, amountPaid: complaints.amountPaid }).toEqual({
          label,
          complaints: withComplaint ? 1 : 0,
          amountPaid: withComplaint ? 40 : 0,
        });
        const expectedUsers = [
          ...(expected.length > 0 || withComplaint
            ? [
                {
                  userId: refs.user('agent'),
                  username: 'agent',
                  transportsCreated: expected.length,
                  complaintsCreated: withComplaint ? 1 : 0,
                  complaintsResolved: 0,
                },
              ]
            : []),
          ...(resolvedIn
            ? [{ userId: refs.user('manager'), username: 'manager', transportsCreated: 0, complaintsCreated: 0, complaintsResolved: 1 }]
            : []),
        ];
        expect({ label, users }).toEqual({ label, users: expectedUsers });
      }
    }
  });
});
