import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { expectInvalid, expectRoleRefused } from '../../support/expect.js';
import { applyActions, createTransport, insertComplaint, loadRefs, type Refs } from './fixtures.js';

const t = useTestApp();
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

type AdminItem = { id: number; createdBy: { id: number; username: string; firstName: string | null; lastName: string | null } };

async function adminList(user: 'manager' | 'supervisor' | 'admin', query: Record<string, string | number> = {}): Promise<AdminItem[]> {
  const res = await t.call('listAdminTransports', { token: await t.token(user), query: { limit: 100, ...query } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.result.meta.total).toBeLessThanOrEqual(100);
  return res.body.result.data;
}

describe('GET /admin/transports (listAdminTransports)', () => {
  it('lists every transport with its creator for a supervisor, filtered by createdBy', async () => {
    const created = await createTransport(t, refs, 'agent2', { loadingPoint: 'Admin list check' });
    const items = await adminList('supervisor', { createdBy: refs.user('agent2') });
    const item = items.find((i) => i.id === created.id);
    expect(item?.createdBy).toEqual({ id: refs.user('agent2'), username: 'agent2', firstName: 'Karim', lastName: 'El Idrissi' });
    expect(items.every((i) => i.createdBy.id === refs.user('agent2'))).toBe(true);
  });

  it("limits a team manager to their team's transports, and an organization outside the team gives an empty page", async () => {
    const mine = await createTransport(t, refs, 'agent');
    const other = await createTransport(t, refs, 'agent2');
    const items = await adminList('manager');
    expect(items.map((i) => i.id)).toContain(mine.id);
    expect(items.map((i) => i.id)).not.toContain(other.id);
    expect(new Set(items.map((i) => i.createdBy.username))).toEqual(new Set(['agent', 'manager']));
    expect(await adminList('manager', { organizationId: refs.organization('TOG-FRN-BETA') })).toEqual([]);
  });

  it('filters by organization subtree for a supervisor', async () => {
    const beta = await createTransport(t, refs, 'agent2');
    const alpha = await createTransport(t, refs, 'agent');
    const betaIds = (await adminList('supervisor', { organizationId: refs.organization('TOG-FRN-BETA') })).map((i) => i.id);
    expect(betaIds).toContain(beta.id);
    expect(betaIds).not.toContain(alpha.id);
    const regionIds = (await adminList('supervisor', { organizationId: refs.organization('TOG-FRN') })).map((i) => i.id);
    expect(regionIds).toEqual(expect.arrayContaining([alpha.id, beta.id]));
  });

  it('refuses an agent with 403', async () => {
    const res = await t.call('listAdminTransports', { token: await t.token('agent') });
    expectRoleRefused(res, 'listAdminTransports');
  });

  it('answers 400 for a reversed date range', async () => {
    const res = await t.call('listAdminTransports', {
      token: await t.token('supervisor'),
      query: { startDate: '2026-03-01T00:00:00Z', endDate: '2026-02-01T00:00:00Z' },
    });
    expectInvalid(res, /^querystring\/(startDate|endDate) /);
  });
});

describe('GET /admin/transports/{id} (getAdminTransportById)', () => {
  it('returns the detail with the creator and the actions of the current status', async () => {
    const created = await createTransport(t, refs, 'agent');
    const res = await t.call('getAdminTransportById', { token: await t.token('manager'), params: { id: created.id } });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({
      id: created.id,
      status: 'PENDING',
      createdBy: { id: refs.user('agent'), username: 'agent', firstName: 'Sarah', lastName: 'Benali' },
      allowedActions: ['VALIDATE', 'REJECT'],
    });
  });

  it("answers 404 TRANSPORT_NOT_FOUND to a manager for another team's transport", async () => {
    const created = await createTransport(t, refs, 'agent2');
    const res = await t.call('getAdminTransportById', { token: await t.token('manager'), params: { id: created.id } });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual({ code: 'TRANSPORT_NOT_FOUND', transportId: created.id });
  });
});

describe('PATCH /admin/transports/{id} (updateAdminTransport)', () => {
  it('changes a VALIDATED transport and recomputes the total', async () => {
    const created = await createTransport(t, refs, 'agent');
    await applyActions(t, created.id, ['VALIDATE']);
    const res = await t.call('updateAdminTransport', {
      token: await t.token('supervisor'),
      params: { id: created.id },
      body: { vehiclePlateNumber: 'HK-117-PZ', averageUnitPrice: 1000 },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result).toMatchObject({
      status: 'VALIDATED',
      vehiclePlateNumber: 'HK-117-PZ',
      totalProductValue: 24000,
      allowedActions: ['START'],
    });
  });

  it('accepts the inactive vehicle type the transport already has, but not another inactive one', async () => {
    const retired = refs.vehicleType('Tanker truck (retired)');
    const created = await createTransport(t, refs, 'agent');
    await t.db.updateTable('transports').set({ vehicle_type_id: retired }).where('id', '=', created.id).execute();
    const token = await t.token('admin');
    const same = await t.call('updateAdminTransport', {
      token,
      params: { id: created.id },
      body: { vehicleTypeId: retired, productLabel: 'Diesel' },
    });
    expect(same.status).toBe(200);
    expect(same.body.result.vehicleType.id).toBe(retired);

    const other = await createTransport(t, refs, 'agent');
    const res = await t.call('updateAdminTransport', { token, params: { id: other.id }, body: { vehicleTypeId: retired } });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual({ code: 'VEHICLE_TYPE_NOT_FOUND', vehicleTypeId: retired });
  });

  it('answers 409 NOT_EDITABLE in progress, 404 for an absent id and 403 to a team manager', async () => {
    const created = await createTransport(t, refs, 'agent');
    await applyActions(t, created.id, ['VALIDATE', 'START']);
    const token = await t.token('supervisor');
    const res = await t.call('updateAdminTransport', { token, params: { id: created.id }, body: { productLabel: 'x' } });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({ code: 'NOT_EDITABLE', resource: 'transport', id: created.id, status: 'IN_PROGRESS' });
    const absent = await t.call('updateAdminTransport', { token, params: { id: 999999 }, body: { productLabel: 'x' } });
    expect(absent.status).toBe(404);
    expect(absent.body.errors).toEqual({ code: 'TRANSPORT_NOT_FOUND', transportId: 999999 });
    const manager = await t.call('updateAdminTransport', {
      token: await t.token('manager'),
      params: { id: created.id },
      body: { productLabel: 'x' },
    });
    expect(manager.status).toBe(403);
  });
});

describe('DELETE /admin/transports/{id} (deleteAdminTransport)', () => {
  it('deletes a transport in any status with its history', async () => {
    const created = await createTransport(t, refs, 'agent');
    await applyActions(t, created.id, ['VALIDATE', 'START', 'FINISH']);
    const res = await t.call('deleteAdminTransport', { token: await t.token('admin'), params: { id: created.id } });
    expect(res.status).toBe(200);
    expect(await t.db.selectFrom('transports').select('id').where('id', '=', created.id).execute()).toHaveLength(0);
    expect(await t.db.selectFrom('transport_status_history').select('id').where('transport_id', '=', created.id).execute()).toHaveLength(0);
  });

  it('answers 409 RESOURCE_IN_USE while a complaint exists, 404 for an absent id, 403 to a supervisor', async () => {
    const created = await createTransport(t, refs, 'agent');
    await insertComplaint(t, refs, created.id);
    const token = await t.token('admin');
    const res = await t.call('deleteAdminTransport', { token, params: { id: created.id } });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({ code: 'RESOURCE_IN_USE', resource: 'transport', id: created.id, usageCount: 1 });
    const absent = await t.call('deleteAdminTransport', { token, params: { id: 999999 } });
    expect(absent.status).toBe(404);
    const supervisor = await t.call('deleteAdminTransport', { token: await t.token('supervisor'), params: { id: created.id } });
    expect(supervisor.status).toBe(403);
    expect(await t.db.selectFrom('transports').select('id').where('id', '=', created.id).execute()).toHaveLength(1);
  });
});

describe('POST /admin/transports/{id}/assign-customer (assignTransportCustomer)', () => {
  it('sets the customer of a completed transport without touching its status or history', async () => {
    const created = await createTransport(t, refs, 'agent');
    await applyActions(t, created.id, ['VALIDATE', 'START', 'FINISH']);
    const res = await t.call('assignTransportCustomer', {
      token: await t.token('supervisor'),
      params: { id: created.id },
      body: { customerId: refs.customer('Marc') },
    });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({ status: 'COMPLETED', customer: { id: refs.customer('Marc'), firstName: 'Marc', email: null } });
    const history = await t.db.selectFrom('transport_status_history').select('id').where('transport_id', '=', created.id).execute();
    // CREATE, VALIDATE (level 1), VALIDATE (level 2), START, FINISH: nothing added by the assignment.
    expect(history).toHaveLength(5);
  });

  it('answers 404 CUSTOMER_NOT_FOUND for a non-customer, 404 for an absent transport, 409 when archived', async () => {
    const created = await createTransport(t, refs, 'agent');
    const token = await t.token('admin');
    const staff = await t.call('assignTransportCustomer', {
      token,
      params: { id: created.id },
      body: { customerId: refs.staffActor('agent') },
    });
    expect(staff.status).toBe(404);
    expect(staff.body.errors).toEqual({ code: 'CUSTOMER_NOT_FOUND', customerId: refs.staffActor('agent') });
    const absent = await t.call('assignTransportCustomer', { token, params: { id: 999999 }, body: { customerId: refs.customer('Marc') } });
    expect(absent.status).toBe(404);
    expect(absent.body.errors).toEqual({ code: 'TRANSPORT_NOT_FOUND', transportId: 999999 });
    await applyActions(t, created.id, ['VALIDATE', 'START', 'FINISH', 'ARCHIVE']);
    const archived = await t.call('assignTransportCustomer', {
      token,
      params: { id: created.id },
      body: { customerId: refs.customer('Marc') },
    });
    expect(archived.status).toBe(409);
    expect(archived.body.errors).toEqual({ code: 'NOT_EDITABLE', resource: 'transport', id: created.id, status: 'ARCHIVED' });
  });

  it('refuses a team manager with 403', async () => {
    const created = await createTransport(t, refs, 'agent');
    const res = await t.call('assignTransportCustomer', {
      token: await t.token('manager'),
      params: { id: created.id },
      body: { customerId: refs.customer('Marc') },
    });
    expectRoleRefused(res, 'assignTransportCustomer');
    const read = await t.call('getAdminTransportById', { token: await t.token('supervisor'), params: { id: created.id } });
    expect(read.body.result.customer).toBeNull();
  });
});
