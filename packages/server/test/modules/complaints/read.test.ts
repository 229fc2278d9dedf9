import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { idsIn } from '../../support/fixtures.js';
import { expectUnauthenticated } from '../../support/expect.js';
import { fileComplaint, loadRefs, moveTo, type Refs } from './fixtures.js';

const t = useTestApp();
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

describe('GET /trade/complaints (listComplaints)', () => {
  it('gives an agent their own complaints only, with linked page meta', async () => {
    const { id } = await fileComplaint(t, refs, 'agent', { label: 'Agent list check' });
    const theirs = await fileComplaint(t, refs, 'agent2', { label: 'Agent2 list check' });
    const res = await t.call('listComplaints', { token: await t.token('agent'), query: { limit: 100 } });
    expect(res.status).toBe(200);
    expect(idsIn(res.body)).toContain(id);
    expect(idsIn(res.body)).not.toContain(theirs.id);
    const creators = await t.db.selectFrom('complaints').select('created_by').where('id', 'in', idsIn(res.body)).execute();
    expect(new Set(creators.map((c) => c.created_by))).toEqual(new Set([refs.user('agent')]));
    expect(res.body.result.meta).toMatchObject({ current_page: 1, next_page: null, previous_page: null, limit: 100 });
    const item = res.body.result.data.find((d: { id: number }) => d.id === id);
    expect(item).toMatchObject({
      label: 'Agent list check',
      status: 'PENDING',
      complaintType: null,
      transport: {
        loadingPoint: 'Lyon, Port Edouard Herriot',
        unloadingPoint: 'Marseille, Fos-sur-Mer terminal',
        vehiclePlateNumber: 'GH-482-TK',
      },
    });
  });

  it('shows a team manager the complaints of the team but not those of another team', async () => {
    const { id } = await fileComplaint(t, refs, 'agent', { label: 'Team alpha complaint' });
    const other = await fileComplaint(t, refs, 'agent2', { label: 'Team beta complaint' });
    const res = await t.call('listComplaints', { token: await t.token('manager'), query: { limit: 100 } });
    expect(idsIn(res.body)).toContain(id);
    expect(idsIn(res.body)).not.toContain(other.id);
    const supervisor = await t.call('listComplaints', { token: await t.token('supervisor'), query: { limit: 100 } });
    expect(idsIn(supervisor.body)).toEqual(expect.arrayContaining([id, other.id]));
  });

  it('pages with next_page and previous_page', async () => {
    for (let i = 0; i < 3; i++) await fileComplaint(t, refs, 'agent2', { label: `Paging ${i}` });
    const token = await t.token('agent2');
    const all = await t.call('listComplaints', { token, query: { limit: 100 } });
    const total: number = all.body.result.meta.total;
    expect(total).toBeGreaterThanOrEqual(5);
    const page2 = await t.call('listComplaints', { token, query: { page: 2, limit: 2 } });
    expect(page2.body.result.meta).toEqual({
      total,
      current_page: 2,
      total_pages: Math.ceil(total / 2),
      limit: 2,
      next_page: 3,
      previous_page: 1,
      total_is_exact: true,
      next_cursor: expect.any(String),
    });
    expect(idsIn(page2.body)).toEqual(idsIn(all.body).slice(2, 4));
  });

  it('filters by status, complaint type, country, creation dates and label, and sorts', async () => {
    const type = refs.complaintType('Missing goods');
    const a = await fileComplaint(t, refs, 'agent', { label: 'Filter Zeta missing boxes', complaintTypeId: type });
    const b = await fileComplaint(t, refs, 'agent', { label: 'filter zeta late truck' });
    await moveTo(t, b.id, ['IN_PROGRESS']);
    const token = await t.token('agent');

    const byLabel = await t.call('listComplaints', { token, query: { label: 'ZETA', sortBy: 'createdAt', sortOrder: 'ASC' } });
    expect(idsIn(byLabel.body)).toEqual([a.id, b.id]);
    const byStatus = await t.call('listComplaints', { token, query: { label: 'zeta', status: 'IN_PROGRESS' } });
    expect(idsIn(byStatus.body)).toEqual([b.id]);
    const byType = await t.call('listComplaints', { token, query: { label: 'zeta', complaintTypeId: type } });
    expect(idsIn(byType.body)).toEqual([a.id]);
    expect(byType.body.result.data[0]!.complaintType).toEqual({ id: type, name: 'Missing goods' });

    const france = await t.db.selectFrom('countries').select('id').where('code', '=', 'FR').executeTakeFirstOrThrow();
    const morocco = await t.db.selectFrom('countries').select('id').where('code', '=', 'MA').executeTakeFirstOrThrow();
    expect(idsIn((await t.call('listComplaints', { token, query: { label: 'zeta', countryId: france.id } })).body)).toHaveLength(2);
    expect(idsIn((await t.call('listComplaints', { token, query: { label: 'zeta', countryId: morocco.id } })).body)).toEqual([]);

    const future = new Date(Date.now() + 3_600_000).toISOString();
    const past = new Date(Date.now() - 3_600_000).toISOString();
    expect(idsIn((await t.call('listComplaints', { token, query: { label: 'zeta', startAtFrom: future } })).body)).toEqual([]);
    expect(
      idsIn((await t.call('listComplaints', { token, query: { label: 'zeta', startAtFrom: past, startAtTo: future } })).body),
    ).toHaveLength(2);
    expect(idsIn((await t.call('listComplaints', { token, query: { label: 'zeta', startAtTo: past } })).body)).toEqual([]);
  });

  it('includes a complaint created within the millisecond of startAtTo (the column keeps microseconds)', async () => {
    const { id } = await fileComplaint(t, refs, 'agent', { label: 'Microsecond edge' });
    await sql`update complaints set created_at = '2026-03-04T05:06:07.123456Z' where id = ${id}`.execute(t.db);
    const token = await t.token('supervisor');
    const shown = (await t.call('getComplaintById', { token, params: { id } })).body.result.createdAt;
    expect(shown).toBe('2026-03-04T05:06:07.123Z');
    const upTo = (startAtTo: string) => t.call('listComplaints', { token, query: { label: 'Microsecond edge', startAtTo } });
    expect(idsIn((await upTo(shown)).body)).toEqual([id]);
    expect(idsIn((await upTo('2026-03-04T05:06:07.122Z')).body)).toEqual([]);
    expect(
      idsIn((await t.call('listComplaints', { token, query: { label: 'Microsecond edge', startAtFrom: shown, startAtTo: shown } })).body),
    ).toEqual([id]);
  });

  it('shows an agent the complaints assigned to them, read only', async () => {
    const { id } = await fileComplaint(t, refs, 'agent2', { label: 'Assigned to agent' });
    await t.call('assignComplaint', { token: await t.token('supervisor'), params: { id }, body: { userId: refs.user('agent') } });
    const token = await t.token('agent');
    expect(idsIn((await t.call('listComplaints', { token, query: { limit: 100 } })).body)).toContain(id);
    expect((await t.call('getComplaintById', { token, params: { id } })).status).toBe(200);
    const update = await t.call('updateComplaint', { token, params: { id }, body: { location: 'Somewhere' } });
    expect(update.status).toBe(404);
    const remove = await t.call('deleteComplaint', { token, params: { id } });
    expect(remove.status).toBe(404);
  });

  it('answers 400 for an invalid parameter', async () => {
    const res = await t.call('listComplaints', { token: await t.token('agent'), query: { status: 'LOST' } });
    expect(res.status).toBe(400);
    expect((res.body.errors as unknown as string[])[0]).toMatch(/^querystring\/status must be one of/);
  });
});

describe('GET /trade/complaints/{id} (getComplaintById)', () => {
  it('returns the complaint with its transport, customer, type and attachments', async () => {
    const fatou = refs.customer('Fatou');
    const type = refs.complaintType('Damaged goods');
    const { id, transport } = await fileComplaint(
      t,
      refs,
      'agent',
      { complaintTypeId: type, amountPaid: 120.5, timeLost: 30, location: 'Dock 4' },
      fatou,
    );
    const res = await t.call('getComplaintById', { token: await t.token('agent'), params: { id } });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({
      id,
      label: 'Pallets crushed at unloading',
      description: null,
      status: 'PENDING',
      location: 'Dock 4',
      amountPaid: 120.5,
      timeLost: 30,
      transport: { id: transport.id, loadingPoint: 'Lyon, Port Edouard Herriot' },
      customer: { id: fatou, firstName: 'Fatou', lastName: 'Ndiaye', email: 'fatou.ndiaye@mail.example' },
      complaintType: { id: type, name: 'Damaged goods', description: 'Goods were damaged during loading, transport or unloading.' },
      attachments: [],
    });
  });

  it('hides the complaint of another agent (404), shows it to the team manager, not to another team', async () => {
    const { id } = await fileComplaint(t, refs, 'agent');
    const hidden = await t.call('getComplaintById', { token: await t.token('agent2'), params: { id } });
    expect(hidden.status).toBe(404);
    expect(hidden.body.errors).toEqual({ code: 'COMPLAINT_NOT_FOUND', complaintId: id });
    expect((await t.call('getComplaintById', { token: await t.token('manager'), params: { id } })).status).toBe(200);
    const beta = await fileComplaint(t, refs, 'agent2');
    expect((await t.call('getComplaintById', { token: await t.token('manager'), params: { id: beta.id } })).status).toBe(404);
  });

  it('answers 404 for an unknown id and 400 for an invalid one', async () => {
    const token = await t.token('supervisor');
    expect((await t.call('getComplaintById', { token, params: { id: 99999 } })).body.errors).toEqual({
      code: 'COMPLAINT_NOT_FOUND',
      complaintId: 99999,
    });
    expect((await t.call('getComplaintById', { token, params: { id: 'abc' } })).status).toBe(400);
  });
});

describe('GET /trade/complaints/{id}/status-history (getComplaintStatusHistory)', () => {
  it('lists the statuses oldest first with comment and author', async () => {
    const { id } = await fileComplaint(t, refs, 'agent');
    await t.call('changeComplaintStatus', {
      token: await t.token('manager'),
      params: { id },
      body: { status: 'IN_PROGRESS', comment: 'Taken in charge.' },
    });
    const res = await t.call('getComplaintStatusHistory', { token: await t.token('agent'), params: { id } });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual([
      expect.objectContaining({
        status: 'PENDING',
        comment: null,
        createdBy: { id: refs.user('agent'), name: 'Sarah Benali', type: 'AGENT' },
      }),
      expect.objectContaining({
        status: 'IN_PROGRESS',
        comment: 'Taken in charge.',
        createdBy: { id: refs.user('manager'), name: 'Julien Moreau', type: 'AGENT' },
      }),
    ]);
  });

  it('answers 404 COMPLAINT_NOT_FOUND outside the caller scope', async () => {
    const { id } = await fileComplaint(t, refs, 'agent');
    const res = await t.call('getComplaintStatusHistory', { token: await t.token('agent2'), params: { id } });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual({ code: 'COMPLAINT_NOT_FOUND', complaintId: id });
  });
});

describe('GET /trade/complaints/types (listComplaintTypes)', () => {
  it('lists the active types by name, without the inactive ones', async () => {
    const res = await t.call('listComplaintTypes', { token: await t.token('agent') });
    expect(res.status).toBe(200);
    expect(res.body.result.map((c: { name: string }) => c.name)).toEqual([
      'Billing dispute',
      'Damaged goods',
      'Delivery delay',
      'Driver behaviour',
      'Missing goods',
    ]);
    expect(res.body.result.every((c: { isActive: boolean }) => c.isActive)).toBe(true);
  });

  it('answers 401 without a token', async () => {
    expectUnauthenticated(await t.call('listComplaintTypes'));
  });
});
