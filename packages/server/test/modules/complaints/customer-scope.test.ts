import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { expectError } from '../../support/expect.js';
import { countRows, fileComplaint, insertTransport, loadRefs, type Refs } from './fixtures.js';

/**
 * A complaint names a customer under the rule transports follow: agents and team managers only
 * the customers of transports they can see, supervisors and administrators any. Anything else is
 * 404 CUSTOMER_NOT_FOUND, and no read shows that customer afterwards.
 */
const t = useTestApp();
let refs: Refs;
let foreign: { id: number; email: string };
let teamBetaCustomer: number;
beforeAll(async () => {
  refs = await loadRefs(t);
  // A customer only a supervisor's transport refers to: no agent or manager was ever given it.
  const email = 'confidential.client@mail.example';
  const [customer] = await t.db
    .insertInto('actors')
    .values({ actor_role: 'CUSTOMER', first_name: 'Confidential', last_name: 'Client', email, phone: '+33 1 98 76 54 32' })
    .returning('id')
    .execute();
  foreign = { id: customer!.id, email };
  await insertTransport(t, refs, 'supervisor', foreign.id);
  // A customer of agent2 (Team Beta): outside the scope of agent and of manager (Team Alpha).
  const [beta] = await t.db
    .insertInto('actors')
    .values({ actor_role: 'CUSTOMER', first_name: 'Beta', last_name: 'Customer', email: 'beta.customer@mail.example' })
    .returning('id')
    .execute();
  teamBetaCustomer = beta!.id;
  await insertTransport(t, refs, 'agent2', teamBetaCustomer);
});

describe('the customer a complaint names', () => {
  it('refuses, on create, a customer outside the agent scope with the answer transports give, and stores nothing', async () => {
    const token = await t.token('agent');
    const transport = await insertTransport(t, refs, 'agent');
    const onTransport = await t.call('createTransport', {
      token,
      body: {
        chargerFirstName: 'Marc',
        chargerLastName: 'Dubois',
        vehicleTypeId: refs.vehicleType,
        loadingPoint: 'Lyon',
        customerId: foreign.id,
      },
    });
    const res = await t.call('createComplaint', { token, body: { transportId: transport.id, customerId: foreign.id } });
    expectError(res, 404, 'CUSTOMER_NOT_FOUND', { customerId: foreign.id });
    // The same id, the same refusal on a transport.
    expect(res.body.errors).toEqual(onTransport.body.errors);
    expect(JSON.stringify(res.body)).not.toContain(foreign.email);
    expect(await countRows(t, 'complaints', { column: 'transport_id', value: transport.id })).toBe(0);
  });

  it('refuses it on update, leaving the complaint and its customer as they were', async () => {
    const own = refs.customer('Fatou');
    const { id } = await fileComplaint(t, refs, 'agent', {}, own);
    const token = await t.token('agent');
    const res = await t.call('updateComplaint', { token, params: { id }, body: { customerId: foreign.id, location: 'Dock 9' } });
    expectError(res, 404, 'CUSTOMER_NOT_FOUND', { customerId: foreign.id });
    const row = await t.db.selectFrom('complaints').select(['customer_id', 'location']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(row).toEqual({ customer_id: own, location: null });
    const read = await t.call('getComplaintById', { token, params: { id } });
    expect(read.status).toBe(200);
    expect(read.body.result.customer?.id).toBe(own);
    expect(JSON.stringify(read.body)).not.toContain(foreign.email);
  });

  it('refuses a team manager another team customer on create', async () => {
    const transport = await insertTransport(t, refs, 'manager');
    const res = await t.call('createComplaint', {
      token: await t.token('manager'),
      body: { transportId: transport.id, customerId: teamBetaCustomer },
    });
    expectError(res, 404, 'CUSTOMER_NOT_FOUND', { customerId: teamBetaCustomer });
    expect(await countRows(t, 'complaints', { column: 'transport_id', value: transport.id })).toBe(0);
  });

  it('accepts a customer of a transport the caller sees, and shows it', async () => {
    const token = await t.token('agent2');
    const transport = await insertTransport(t, refs, 'agent2');
    const res = await t.call('createComplaint', { token, body: { transportId: transport.id, customerId: teamBetaCustomer } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const read = await t.call('getComplaintById', { token, params: { id: res.body.result.id } });
    expect(read.body.result.customer).toMatchObject({ id: teamBetaCustomer, email: 'beta.customer@mail.example' });
  });

  it('lets a supervisor name any customer on the administration update', async () => {
    const { id } = await fileComplaint(t, refs, 'agent');
    const res = await t.call('updateAdminComplaint', {
      token: await t.token('supervisor'),
      params: { id },
      body: { customerId: foreign.id },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const row = await t.db.selectFrom('complaints').select('customer_id').where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.customer_id).toBe(foreign.id);
  });
});
