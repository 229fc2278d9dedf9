import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { loadRefs, type Refs, transportBody } from './fixtures.js';

const t = useTestApp();
let refs: Refs;
let foreignCustomer: number;
beforeAll(async () => {
  refs = await loadRefs(t);
  // A customer that only a supervisor's transport refers to: no agent was ever given it.
  const created = await t.call('createTransport', {
    token: await t.token('supervisor'),
    body: transportBody(refs, {
      newCustomer: { firstName: 'Private', lastName: 'Client', email: 'private.client@mail.example', phone: '+33 1 00 00 00 00' },
    }),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  foreignCustomer = created.body.result.customer!.id;
});

describe('customers an agent may reference', () => {
  it('refuses a customer outside the agent scope with 404 CUSTOMER_NOT_FOUND, leaking none of its details', async () => {
    const res = await t.call('createTransport', {
      token: await t.token('agent'),
      body: transportBody(refs, { customerId: foreignCustomer }),
    });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual({ code: 'CUSTOMER_NOT_FOUND', customerId: foreignCustomer });
    expect(JSON.stringify(res.body)).not.toContain('private.client');
  });

  it('refuses it in an update too', async () => {
    const token = await t.token('agent');
    const own = await t.call('createTransport', { token, body: transportBody(refs) });
    const res = await t.call('updateTransport', { token, params: { id: own.body.result.id }, body: { customerId: foreignCustomer } });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual({ code: 'CUSTOMER_NOT_FOUND', customerId: foreignCustomer });
  });

  it('accepts a customer of one of the agent own transports', async () => {
    const token = await t.token('agent2');
    const first = await t.call('createTransport', {
      token,
      body: transportBody(refs, { newCustomer: { firstName: 'Own', lastName: 'Client', email: 'own.client@mail.example' } }),
    });
    const customerId = first.body.result.customer!.id;
    const second = await t.call('createTransport', { token, body: transportBody(refs, { customerId }) });
    expect(second.status).toBe(201);
    expect(second.body.result.customer).toMatchObject({ id: customerId, email: 'own.client@mail.example' });
  });

  it('lets a supervisor reference any customer', async () => {
    const res = await t.call('createTransport', {
      token: await t.token('supervisor'),
      body: transportBody(refs, { customerId: foreignCustomer }),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.result.customer).toMatchObject({ id: foreignCustomer, email: 'private.client@mail.example' });
    const read = await t.call('getTransportById', { token: await t.token('supervisor'), params: { id: res.body.result.id } });
    expect(read.body.result.customer?.id).toBe(foreignCustomer);
  });

  it('refuses customerId and newCustomer together with the documented message', async () => {
    const res = await t.call('createTransport', {
      token: await t.token('agent'),
      body: transportBody(refs, { customerId: foreignCustomer, newCustomer: { firstName: 'A', lastName: 'B', email: 'a.b@mail.example' } }),
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(['body must not contain both customerId and newCustomer']);
  });
});
