import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { idsOf } from '../../support/fixtures.js';
import { deref, operationById } from '../../support/contract.js';
import { expectInvalid, expectNotFound, expectRoleRefused } from '../../support/expect.js';
import { actorIdOf, uniqueEmail } from './fixtures.js';

const t = useTestApp();

async function newCustomer(body: Record<string, unknown> = {}) {
  const res = await t.call('createCustomer', {
    token: await t.token('supervisor'),
    body: { firstName: 'Awa', lastName: 'Traoré', email: uniqueEmail('customer'), ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.result;
}

/** Transports and complaints per customer, counted straight from the tables. */
async function usage() {
  const rows = await t.db
    .selectFrom('actors as a')
    .where('a.actor_role', '=', 'CUSTOMER')
    .select((eb) => [
      'a.id',
      eb.selectFrom('transports as tr').whereRef('tr.customer_id', '=', 'a.id').select(sql<number>`count(*)::int`.as('n')).as('transports'),
      eb.selectFrom('complaints as c').whereRef('c.customer_id', '=', 'a.id').select(sql<number>`count(*)::int`.as('n')).as('complaints'),
    ])
    .execute();
  return new Map(rows.map((r) => [r.id, { transportsCount: Number(r.transports), complaintsCount: Number(r.complaints) }]));
}

describe('GET /admin/actors/customers (listCustomers)', () => {
  it('shows a team manager every customer with its transports and complaints counts', async () => {
    const res = await t.call('listCustomers', { token: await t.token('manager'), query: { limit: 100 } });
    expect(res.status).toBe(200);
    const expected = await usage();
    expect(res.body.result.meta.total).toBe(expected.size);
    for (const c of res.body.result.data) {
      expect(c).toMatchObject({ actorRole: 'CUSTOMER', organization: null, user: null, ...expected.get(c.id) });
    }
    expect(res.body.result.data.some((c: { transportsCount: number }) => c.transportsCount > 0)).toBe(true);
  });

  it('searches e-mail and phone, filters by state and sorts by first name', async () => {
    const manager = await t.token('manager');
    const byMail = await t.call('listCustomers', { token: manager, query: { search: 'PIERRE.LAMBERT@' } });
    expect(byMail.body.result.data.map((c: { lastName: string }) => c.lastName)).toEqual(['Lambert']);
    const byPhone = await t.call('listCustomers', { token: manager, query: { search: '612 345' } });
    expect(byPhone.body.result.data.map((c: { lastName: string }) => c.lastName)).toEqual(['Alaoui']);

    const off = await newCustomer({ firstName: 'Inactive' });
    await t.call('deactivateCustomer', { token: await t.token('supervisor'), params: { id: off.id } });
    const inactive = await t.call('listCustomers', { token: manager, query: { isActive: false } });
    expect(idsOf(inactive)).toContain(off.id);
    expect(inactive.body.result.data.every((c: { isActive: boolean }) => !c.isActive)).toBe(true);

    for (const firstName of ['Sortb', 'Sortc', 'Sorta']) await newCustomer({ firstName });
    const sorted = await t.call('listCustomers', { token: manager, query: { search: 'Sort', sortBy: 'firstName', sortOrder: 'ASC' } });
    expect(sorted.body.result.data.map((c: { firstName: string }) => c.firstName)).toEqual(['Sorta', 'Sortb', 'Sortc']);
  });

  it('refuses an agent with 403 FORBIDDEN', async () => {
    const res = await t.call('listCustomers', { token: await t.token('agent') });
    expectRoleRefused(res, 'listCustomers');
  });
});

describe('POST /admin/actors/customers (createCustomer)', () => {
  it('creates a customer with only an e-mail, or only a phone', async () => {
    const email = uniqueEmail('awa');
    const withMail = await t.call('createCustomer', {
      token: await t.token('supervisor'),
      body: { firstName: 'Awa', lastName: 'Traoré', email, address: 'Cocody, Abidjan' },
    });
    expect(withMail.status).toBe(201);
    expect(withMail.body.result).toMatchObject({
      actorRole: 'CUSTOMER',
      firstName: 'Awa',
      lastName: 'Traoré',
      email,
      phone: null,
      address: 'Cocody, Abidjan',
      organization: null,
      user: null,
      isActive: true,
      transportsCount: 0,
      complaintsCount: 0,
    });
    const withPhone = await t.call('createCustomer', {
      token: await t.token('admin'),
      body: { firstName: 'Ibrahim', lastName: 'Sanogo', phone: '+2250102030405' },
    });
    expect(withPhone.status).toBe(201);
    expect(withPhone.body.result).toMatchObject({ email: null, phone: '+2250102030405' });
  });

  it('refuses a customer with neither e-mail nor phone with 400 MISSING_CUSTOMER_INFO', async () => {
    const res = await t.call('createCustomer', {
      token: await t.token('supervisor'),
      body: { firstName: 'No', lastName: 'Contact' } as never,
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual({ code: 'MISSING_CUSTOMER_INFO', message: 'Provide at least an e-mail address or a phone number' });
  });

  it('states the contact rule in the schema (anyOf) and keeps its answer: MISSING_CUSTOMER_INFO alone, the other rules first', async () => {
    const schema = deref(
      deref(operationById.get('createCustomer')!.operation.requestBody as Record<string, any>).content['application/json'].schema,
    );
    expect(schema.allOf[1].anyOf.map((branch: { required: string[] }) => branch.required)).toEqual([['email'], ['phone']]);
    const token = await t.token('supervisor');
    const before = await t.db
      .selectFrom('actors')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    // No contact and another broken rule: the list names the other rule only (the contact is checked once the fields are valid).
    const both = await t.call('createCustomer', { token, body: { firstName: '', lastName: 'Contact' } as never });
    expect(both.status).toBe(400);
    expect(both.body).toMatchObject({ message: 'Validation failed', errors: ['body/firstName must NOT have fewer than 1 characters'] });
    // Either contact alone is enough.
    const email = await t.call('createCustomer', { token, body: { firstName: 'Only', lastName: 'Mail', email: uniqueEmail('only.mail') } });
    expect(email.status, JSON.stringify(email.body)).toBe(201);
    expect(email.body.result).toMatchObject({ firstName: 'Only', phone: null });
    const after = await t.db
      .selectFrom('actors')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n) + 1);
  });

  it("refuses an e-mail used by another customer with 409 ALREADY_EXISTS, but accepts an agent's", async () => {
    const taken = await t.call('createCustomer', {
      token: await t.token('supervisor'),
      body: { firstName: 'F', lastName: 'N', email: 'Fatou.Ndiaye@mail.example' },
    });
    expect(taken.status).toBe(409);
    expect(taken.body.errors).toEqual({ code: 'ALREADY_EXISTS', resource: 'actor', field: 'email', value: 'Fatou.Ndiaye@mail.example' });
    const agentMail = await t.call('createCustomer', {
      token: await t.token('supervisor'),
      body: { firstName: 'Sarah', lastName: 'Benali', email: 'agent@transport-ops.example' },
    });
    expect(agentMail.status).toBe(201);
  });

  it('lets exactly one of parallel creations with the same e-mail win', async () => {
    const email = uniqueEmail('race');
    const supervisor = await t.token('supervisor');
    const results = await Promise.all(
      Array.from({ length: 4 }, () =>
        t.call('createCustomer', { token: supervisor, body: { firstName: 'Race', lastName: 'Customer', email } }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    const rows = await t.db.selectFrom('actors').select('id').where('actor_role', '=', 'CUSTOMER').where('email', '=', email).execute();
    expect(rows).toHaveLength(1);
  });

  it('refuses organizationId (customers belong to no organization) with 400', async () => {
    const res = await t.call('createCustomer', {
      token: await t.token('supervisor'),
      payload: { firstName: 'A', lastName: 'B', phone: '+33600000001', organizationId: 1 },
    });
    expectInvalid(res, 'body/organizationId is not an accepted field');
    const found = await t.call('listCustomers', { token: await t.token('supervisor'), query: { search: '+33600000001' } });
    expect(found.body.result.data).toEqual([]);
  });

  it('refuses a team manager with 403 FORBIDDEN', async () => {
    const res = await t.call('createCustomer', {
      token: await t.token('manager'),
      body: { firstName: 'A', lastName: 'B', phone: '+33600000001' },
    });
    expectRoleRefused(res, 'createCustomer');
    const found = await t.call('listCustomers', { token: await t.token('supervisor'), query: { search: '+33600000001' } });
    expect(found.body.result.data).toEqual([]);
  });
});

describe('GET /admin/actors/customers/{id} (getCustomerById)', () => {
  it('returns the customer with its counts', async () => {
    const expected = await usage();
    const [id, counts] = [...expected.entries()].find(([, c]) => c.transportsCount > 0)!;
    const res = await t.call('getCustomerById', { token: await t.token('manager'), params: { id } });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({ id, actorRole: 'CUSTOMER', ...counts });
  });

  it('answers 404 for an unknown id and for an agent id', async () => {
    const manager = await t.token('manager');
    expect((await t.call('getCustomerById', { token: manager, params: { id: 99999 } })).status).toBe(404);
    const agent = await t.call('getCustomerById', { token: manager, params: { id: await actorIdOf(t, 'agent') } });
    expect(agent.status).toBe(404);
    expect(agent.body.errors.code).toBe('RESOURCE_NOT_FOUND');
  });
});

describe('PATCH /admin/actors/customers/{id} (updateCustomer)', () => {
  it('clears the e-mail while a phone remains', async () => {
    const created = await newCustomer({ phone: '+221771234567' });
    const res = await t.call('updateCustomer', {
      token: await t.token('supervisor'),
      params: { id: created.id },
      body: { email: null, lastName: 'Diop' },
    });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({ id: created.id, email: null, phone: '+221771234567', lastName: 'Diop' });
  });

  it('refuses a change that leaves neither e-mail nor phone with 400 MISSING_CUSTOMER_INFO', async () => {
    const created = await newCustomer();
    const res = await t.call('updateCustomer', { token: await t.token('supervisor'), params: { id: created.id }, body: { email: null } });
    expect(res.status).toBe(400);
    expect(res.body.errors.code).toBe('MISSING_CUSTOMER_INFO');
    const row = await t.db.selectFrom('actors').select('email').where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(row.email).toBe(created.email);
  });

  it('refuses the e-mail of another customer with 409 ALREADY_EXISTS', async () => {
    const created = await newCustomer();
    const res = await t.call('updateCustomer', {
      token: await t.token('supervisor'),
      params: { id: created.id },
      body: { email: 'aminata.kone@mail.example' },
    });
    expect(res.status).toBe(409);
    expect(res.body.errors.field).toBe('email');
  });

  it('answers 404 for an unknown customer', async () => {
    const res = await t.call('updateCustomer', { token: await t.token('supervisor'), params: { id: 99999 }, body: { firstName: 'X' } });
    expectNotFound(res, 'actor', 99999);
  });
});

describe('DELETE /admin/actors/customers/{id} (deleteCustomer)', () => {
  it('deletes a customer without transports or complaints', async () => {
    const created = await newCustomer();
    const res = await t.call('deleteCustomer', { token: await t.token('admin'), params: { id: created.id } });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expectNotFound(await t.call('getCustomerById', { token: await t.token('admin'), params: { id: created.id } }), 'actor', created.id);
  });

  it('refuses a customer with transports with 409 RESOURCE_IN_USE counting transports and complaints', async () => {
    const [id, counts] = [...(await usage()).entries()].find(([, c]) => c.transportsCount > 0)!;
    const res = await t.call('deleteCustomer', { token: await t.token('admin'), params: { id } });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({
      code: 'RESOURCE_IN_USE',
      resource: 'actor',
      id,
      usageCount: counts.transportsCount + counts.complaintsCount,
    });
  });

  it('answers 404 for an unknown customer and refuses a supervisor with 403', async () => {
    expectNotFound(await t.call('deleteCustomer', { token: await t.token('admin'), params: { id: 99999 } }), 'actor', 99999);
    const created = await newCustomer();
    expectRoleRefused(await t.call('deleteCustomer', { token: await t.token('supervisor'), params: { id: created.id } }), 'deleteCustomer');
    const kept = await t.call('getCustomerById', { token: await t.token('admin'), params: { id: created.id } });
    expect(kept.body.result.id).toBe(created.id);
  });
});

describe('POST /admin/actors/customers/{id}/activate and /deactivate', () => {
  it('deactivates then reactivates a customer, idempotently', async () => {
    const created = await newCustomer();
    const supervisor = await t.token('supervisor');
    const off = await t.call('deactivateCustomer', { token: supervisor, params: { id: created.id } });
    expect(off.status).toBe(200);
    expect(off.body.result).toMatchObject({ id: created.id, isActive: false, transportsCount: 0 });
    const again = await t.call('deactivateCustomer', { token: supervisor, params: { id: created.id } });
    expect(again.body.result).toMatchObject({ isActive: false, updatedAt: off.body.result.updatedAt });
    const on = await t.call('activateCustomer', { token: supervisor, params: { id: created.id } });
    expect(on.status).toBe(200);
    expect(on.body.result.isActive).toBe(true);
  });

  it('answers 404 for an unknown customer and refuses a team manager with 403', async () => {
    const supervisor = await t.token('supervisor');
    expectNotFound(await t.call('activateCustomer', { token: supervisor, params: { id: 99999 } }), 'actor', 99999);
    expectNotFound(await t.call('deactivateCustomer', { token: supervisor, params: { id: 99999 } }), 'actor', 99999);
    const created = await newCustomer();
    const refused = await t.call('deactivateCustomer', { token: await t.token('manager'), params: { id: created.id } });
    expectRoleRefused(refused, 'deactivateCustomer');
    const still = await t.call('getCustomerById', { token: supervisor, params: { id: created.id } });
    expect(still.body.result.isActive).toBe(true);
  });
});

describe('POST /admin/actors/customers/bulk-action (bulkActionCustomers)', () => {
  it('deletes what it can and reports referenced and unknown ids', async () => {
    const a = await newCustomer();
    const b = await newCustomer();
    const [used] = [...(await usage()).entries()].find(([, c]) => c.transportsCount > 0)!;
    const res = await t.call('bulkActionCustomers', {
      token: await t.token('admin'),
      body: { action: 'DELETE', ids: [a.id, used, 99999, b.id] },
    });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({
      action: 'DELETE',
      processed: [a.id, b.id],
      failed: [
        { id: used, code: 'RESOURCE_IN_USE', message: `Customer ${used} is still referenced` },
        { id: 99999, code: 'RESOURCE_NOT_FOUND', message: 'Customer 99999 not found' },
      ],
    });
    const left = await t.db.selectFrom('actors').select('id').where('id', 'in', [a.id, b.id, used]).execute();
    expect(left.map((r) => r.id)).toEqual([used]);
  });

  it('deactivates and reactivates several customers', async () => {
    const a = await newCustomer();
    const b = await newCustomer();
    const admin = await t.token('admin');
    const off = await t.call('bulkActionCustomers', { token: admin, body: { action: 'DEACTIVATE', ids: [a.id, b.id] } });
    expect(off.body.result).toEqual({ action: 'DEACTIVATE', processed: [a.id, b.id], failed: [] });
    const rows = await t.db.selectFrom('actors').select('is_active').where('id', 'in', [a.id, b.id]).execute();
    expect(rows.every((r) => !r.is_active)).toBe(true);
    const on = await t.call('bulkActionCustomers', { token: admin, body: { action: 'ACTIVATE', ids: [a.id] } });
    expect(on.body.result.processed).toEqual([a.id]);
  });

  it('refuses a supervisor with 403 and an empty id list with 400', async () => {
    expectRoleRefused(
      await t.call('bulkActionCustomers', { token: await t.token('supervisor'), body: { action: 'ACTIVATE', ids: [1] } }),
      'bulkActionCustomers',
    );
    expectInvalid(
      await t.call('bulkActionCustomers', { token: await t.token('admin'), body: { action: 'ACTIVATE', ids: [] } }),
      'body/ids must NOT have fewer than 1 items',
    );
  });
});
