import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { applyActions, createTransport, insertComplaint, loadRefs, type Refs } from './fixtures.js';

const t = useTestApp();
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

describe('PATCH /trade/transports/{id} (updateTransport)', () => {
  it('changes only the fields sent, clears optional ones with null and recomputes the total', async () => {
    const created = await createTransport(t, refs, 'agent');
    const res = await t.call('updateTransport', {
      token: await t.token('agent'),
      params: { id: created.id },
      body: { unloadingPoint: 'Marseille, Port de la Joliette', productQuantity: 26, vehiclePlateNumber: null },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result).toMatchObject({
      id: created.id,
      loadingNumber: created.loadingNumber,
      status: 'PENDING',
      unloadingPoint: 'Marseille, Port de la Joliette',
      productQuantity: 26,
      averageUnitPrice: 1250,
      totalProductValue: 32500,
      vehiclePlateNumber: null,
      chargerFirstName: 'Marc',
      loadingPoint: created.loadingPoint,
    });
    expect(Date.parse(res.body.result.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.updatedAt as string));
  });

  it('keeps an explicit totalProductValue, and a null price makes the recomputed total null', async () => {
    const created = await createTransport(t, refs, 'agent');
    const token = await t.token('agent');
    const explicit = await t.call('updateTransport', {
      token,
      params: { id: created.id },
      body: { productQuantity: 10, totalProductValue: 99 },
    });
    expect(explicit.body.result.totalProductValue).toBe(99);
    const cleared = await t.call('updateTransport', { token, params: { id: created.id }, body: { averageUnitPrice: null } });
    expect(cleared.body.result).toMatchObject({ averageUnitPrice: null, totalProductValue: null });
  });

  it('sets an existing customer, creates a new one, and removes it with customerId null', async () => {
    const created = await createTransport(t, refs, 'agent');
    const token = await t.token('agent');
    const params = { id: created.id };
    // A customer of one of the agent's own transports: the only customers an agent may name.
    const set = await t.call('updateTransport', { token, params, body: { customerId: refs.customer('Fatou') } });
    expect(set.body.result.customer).toMatchObject({ id: refs.customer('Fatou'), email: 'fatou.ndiaye@mail.example' });
    const made = await t.call('updateTransport', {
      token,
      params,
      body: { newCustomer: { firstName: 'Lea', lastName: 'Petit', email: 'lea.petit@mail.example' } },
    });
    expect(made.status).toBe(200);
    expect(made.body.result.customer).toMatchObject({ firstName: 'Lea', email: 'lea.petit@mail.example' });
    const removed = await t.call('updateTransport', { token, params, body: { customerId: null } });
    expect(removed.body.result.customer).toBeNull();
  });

  it('lets the team manager change the agent transport but answers 404 to agent2', async () => {
    const created = await createTransport(t, refs, 'agent');
    const manager = await t.call('updateTransport', {
      token: await t.token('manager'),
      params: { id: created.id },
      body: { productLabel: 'Copper wire' },
    });
    expect(manager.status).toBe(200);
    expect(manager.body.result.productLabel).toBe('Copper wire');
    const other = await t.call('updateTransport', {
      token: await t.token('agent2'),
      params: { id: created.id },
      body: { productLabel: 'Stolen' },
    });
    expect(other.status).toBe(404);
    expect(other.body.errors).toEqual({ code: 'TRANSPORT_NOT_FOUND', transportId: created.id });
    const row = await t.db.selectFrom('transports').select('product_label').where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(row.product_label).toBe('Copper wire');
  });

  it('answers 409 NOT_EDITABLE once the transport is no longer PENDING', async () => {
    const created = await createTransport(t, refs, 'agent');
    await applyActions(t, created.id, ['VALIDATE']);
    const res = await t.call('updateTransport', {
      token: await t.token('agent'),
      params: { id: created.id },
      body: { productLabel: 'Late change' },
    });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({ code: 'NOT_EDITABLE', resource: 'transport', id: created.id, status: 'VALIDATED' });
  });

  it('answers 404 for an unknown or inactive vehicle type and an unknown customer, 400 for a customer without contact', async () => {
    const created = await createTransport(t, refs, 'agent');
    const token = await t.token('agent');
    const params = { id: created.id };
    const retired = refs.vehicleType('Tanker truck (retired)');
    const vt = await t.call('updateTransport', { token, params, body: { vehicleTypeId: retired } });
    expect(vt.status).toBe(404);
    expect(vt.body.errors).toEqual({ code: 'VEHICLE_TYPE_NOT_FOUND', vehicleTypeId: retired });
    const customer = await t.call('updateTransport', { token, params, body: { customerId: 9999 } });
    expect(customer.status).toBe(404);
    expect(customer.body.errors).toEqual({ code: 'CUSTOMER_NOT_FOUND', customerId: 9999 });
    const missing = await t.call('updateTransport', { token, params, body: { newCustomer: { firstName: 'No', lastName: 'Contact' } } });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toMatchObject({ code: 'MISSING_CUSTOMER_INFO' });
    const empty = await t.call('updateTransport', { token, params, body: {} });
    expect(empty.status).toBe(400);
  });

  it('answers 404 TRANSPORT_NOT_FOUND for an absent id', async () => {
    const res = await t.call('updateTransport', {
      token: await t.token('supervisor'),
      params: { id: 999999 },
      body: { productLabel: 'x' },
    });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual({ code: 'TRANSPORT_NOT_FOUND', transportId: 999999 });
  });
});

describe('DELETE /trade/transports/{id} (deleteTransport)', () => {
  it('deletes a PENDING transport with its history and documents, keeping its new customer', async () => {
    const created = await createTransport(t, refs, 'agent', {
      newCustomer: { firstName: 'Kept', lastName: 'Customer', email: 'kept.customer@mail.example' },
    });
    const res = await t.call('deleteTransport', { token: await t.token('agent'), params: { id: created.id } });
    expect(res.status).toBe(200);
    expect(res.body.result).toBeNull();
    expect(await t.db.selectFrom('transports').select('id').where('id', '=', created.id).execute()).toHaveLength(0);
    expect(await t.db.selectFrom('transport_status_history').select('id').where('transport_id', '=', created.id).execute()).toHaveLength(0);
    const customer = (created.customer as { id: number }).id;
    expect(await t.db.selectFrom('actors').select('id').where('id', '=', customer).execute()).toHaveLength(1);
    const again = await t.call('getTransportById', { token: await t.token('agent'), params: { id: created.id } });
    expect(again.status).toBe(404);
  });

  it('answers 404 to agent2 and leaves the transport in place', async () => {
    const created = await createTransport(t, refs, 'agent');
    const res = await t.call('deleteTransport', { token: await t.token('agent2'), params: { id: created.id } });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual({ code: 'TRANSPORT_NOT_FOUND', transportId: created.id });
    expect(await t.db.selectFrom('transports').select('id').where('id', '=', created.id).execute()).toHaveLength(1);
  });

  it('answers 409 NOT_EDITABLE when the transport is no longer PENDING', async () => {
    const created = await createTransport(t, refs, 'agent');
    await applyActions(t, created.id, ['REJECT']);
    const res = await t.call('deleteTransport', { token: await t.token('agent'), params: { id: created.id } });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({ code: 'NOT_EDITABLE', resource: 'transport', id: created.id, status: 'CANCELLED' });
  });

  it('answers 409 RESOURCE_IN_USE while a complaint refers to the transport', async () => {
    const created = await createTransport(t, refs, 'agent');
    await insertComplaint(t, refs, created.id);
    const res = await t.call('deleteTransport', { token: await t.token('agent'), params: { id: created.id } });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({ code: 'RESOURCE_IN_USE', resource: 'transport', id: created.id, usageCount: 1 });
    expect(await t.db.selectFrom('transports').select('id').where('id', '=', created.id).execute()).toHaveLength(1);
  });
});
