import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { expectUnauthenticated } from '../../support/expect.js';
import { loadRefs, type Refs, transportBody } from './fixtures.js';

const t = useTestApp();
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

const LOADING_NUMBER = /^TRP-\d{8}-\d{6,}$/;
const today = () => new Date().toISOString().slice(0, 10).replace(/-/g, '');

describe('POST /trade/transports (createTransport)', () => {
  it('creates a PENDING transport for an existing customer, with a generated loading number and a CREATE history entry', async () => {
    const customerId = refs.customer('Fatou');
    const res = await t.call('createTransport', {
      token: await t.token('agent'),
      body: transportBody(refs, { chargerEmail: 'marc.dubois@rhone.example', totalProductValue: 29000, customerId }),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const tr = res.body.result;
    expect(tr.status).toBe('PENDING');
    expect(tr.loadingNumber).toMatch(LOADING_NUMBER);
    expect(tr.loadingNumber.slice(4, 12)).toBe(today());
    expect(tr).toMatchObject({
      chargerFirstName: 'Marc',
      chargerEmail: 'marc.dubois@rhone.example',
      loadingPoint: 'Lyon, Port Edouard Herriot',
      productQuantity: 24,
      totalProductValue: 29000,
      vehicleType: { id: refs.vehicleType('Semi-trailer truck'), name: 'Semi-trailer truck', category: 'HEAVY', maxWeight: 40000 },
      customer: { id: customerId, firstName: 'Fatou', lastName: 'Ndiaye', email: 'fatou.ndiaye@mail.example' },
      documents: [],
      complaints: [],
    });
    const row = await t.db
      .selectFrom('transports')
      .select(['created_by', 'loading_number'])
      .where('id', '=', tr.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ created_by: refs.user('agent'), loading_number: tr.loadingNumber });
    const history = await t.db.selectFrom('transport_status_history').selectAll().where('transport_id', '=', tr.id).execute();
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ from_status: null, to_status: 'PENDING', action: 'CREATE', created_by: refs.user('agent') });
  });

  it('computes totalProductValue as quantity × unit price when it is omitted, and leaves it null without both', async () => {
    const token = await t.token('agent');
    const computed = await t.call('createTransport', { token, body: transportBody(refs, { productQuantity: 40, averageUnitPrice: 180 }) });
    expect(computed.status).toBe(201);
    expect(computed.body.result.totalProductValue).toBe(7200);
    const { averageUnitPrice: _omit, ...withoutPrice } = transportBody(refs);
    const none = await t.call('createTransport', { token, body: withoutPrice });
    expect(none.status).toBe(201);
    expect(none.body.result.totalProductValue).toBeNull();
    expect(none.body.result.averageUnitPrice).toBeNull();
  });

  it('creates a transport without customer when neither customerId nor newCustomer is sent', async () => {
    const res = await t.call('createTransport', { token: await t.token('agent2'), body: transportBody(refs, { customerId: null }) });
    expect(res.status).toBe(201);
    expect(res.body.result.customer).toBeNull();
  });

  it('creates the new customer (actor CUSTOMER) together with the transport', async () => {
    const res = await t.call('createTransport', {
      token: await t.token('agent'),
      body: transportBody(refs, { newCustomer: { firstName: 'Thomas', lastName: 'Bernard', phone: '+33 6 11 22 33 44' } }),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const customer = res.body.result.customer;
    expect(customer).toMatchObject({ firstName: 'Thomas', lastName: 'Bernard', email: null, phone: '+33 6 11 22 33 44', address: null });
    const actor = await t.db.selectFrom('actors').selectAll().where('id', '=', customer!.id).executeTakeFirstOrThrow();
    expect(actor).toMatchObject({ actor_role: 'CUSTOMER', user_id: null, is_active: true });
  });

  it('refuses a new customer with neither e-mail nor phone with 400 MISSING_CUSTOMER_INFO and stores nothing', async () => {
    const before = await t.db
      .selectFrom('actors')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const res = await t.call('createTransport', {
      token: await t.token('agent'),
      body: transportBody(refs, { loadingPoint: 'Nowhere-without-contact', newCustomer: { firstName: 'No', lastName: 'Contact' } }),
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toMatchObject({ code: 'MISSING_CUSTOMER_INFO' });
    const after = await t.db
      .selectFrom('actors')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
    const stored = await t.db.selectFrom('transports').select('id').where('loading_point', '=', 'Nowhere-without-contact').execute();
    expect(stored).toHaveLength(0);
  });

  it('answers 400 when customerId and newCustomer are sent together', async () => {
    const res = await t.call('createTransport', {
      token: await t.token('agent'),
      body: transportBody(refs, {
        customerId: refs.customer('Fatou'),
        newCustomer: { firstName: 'A', lastName: 'B', email: 'a.b@mail.example' },
      }),
    });
    expect(res.status).toBe(400);
    expect(Array.isArray(res.body.errors)).toBe(true);
  });

  it('answers 400 with the field for a loading point shorter than 3 characters', async () => {
    const res = await t.call('createTransport', { token: await t.token('agent'), body: transportBody(refs, { loadingPoint: 'Ly' }) });
    expect(res.status).toBe(400);
    expect((res.body.errors as unknown as string[]).join(' ')).toContain('loadingPoint');
  });

  it('answers 404 VEHICLE_TYPE_NOT_FOUND for an unknown and for an inactive vehicle type', async () => {
    const token = await t.token('agent');
    const unknown = await t.call('createTransport', { token, body: transportBody(refs, { vehicleTypeId: 9999 }) });
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors).toEqual({ code: 'VEHICLE_TYPE_NOT_FOUND', vehicleTypeId: 9999 });
    const retired = refs.vehicleType('Tanker truck (retired)');
    const inactive = await t.call('createTransport', { token, body: transportBody(refs, { vehicleTypeId: retired }) });
    expect(inactive.status).toBe(404);
    expect(inactive.body.errors).toEqual({ code: 'VEHICLE_TYPE_NOT_FOUND', vehicleTypeId: retired });
  });

  it('answers 404 CUSTOMER_NOT_FOUND for an unknown id, a non-customer actor and an inactive customer', async () => {
    const token = await t.token('agent');
    const unknown = await t.call('createTransport', { token, body: transportBody(refs, { customerId: 9999 }) });
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors).toEqual({ code: 'CUSTOMER_NOT_FOUND', customerId: 9999 });

    const agentActor = refs.staffActor('agent');
    const staff = await t.call('createTransport', { token, body: transportBody(refs, { customerId: agentActor }) });
    expect(staff.status).toBe(404);
    expect(staff.body.errors).toEqual({ code: 'CUSTOMER_NOT_FOUND', customerId: agentActor });

    const inactive = await t.db
      .insertInto('actors')
      .values({ actor_role: 'CUSTOMER', first_name: 'Old', last_name: 'Client', email: 'old.client@mail.example', is_active: false })
      .returning('id')
      .executeTakeFirstOrThrow();
    const res = await t.call('createTransport', { token, body: transportBody(refs, { customerId: inactive.id }) });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual({ code: 'CUSTOMER_NOT_FOUND', customerId: inactive.id });
  });

  it('answers 401 without a token', async () => {
    const before = await t.call('listAdminTransports', { token: await t.token('supervisor'), query: { limit: 1 } });
    const res = await t.call('createTransport', { body: transportBody(refs) });
    expectUnauthenticated(res);
    const after = await t.call('listAdminTransports', { token: await t.token('supervisor'), query: { limit: 1 } });
    expect(after.body.result.meta.total).toBe(before.body.result.meta.total);
  });

  it('gives 20 parallel creates 20 distinct loading numbers', async () => {
    const token = await t.token('agent');
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.call('createTransport', { token, body: transportBody(refs, { loadingPoint: `Parallel dock ${i}` }) }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
    const numbers = new Set(results.map((r) => r.body.result.loadingNumber as string));
    expect(numbers.size).toBe(20);
    const rows = await t.db.selectFrom('transports').select('loading_number').where('loading_point', 'like', 'Parallel dock %').execute();
    expect(new Set(rows.map((r) => r.loading_number))).toEqual(numbers);
  });

  describe('a loading number already taken outside the sequence', () => {
    /** The numbers the sequence will hand out next (today's date), without consuming them. */
    async function nextNumbers(count: number): Promise<string[]> {
      const { rows } = await sql<{
        last_value: number;
        is_called: boolean;
      }>`select last_value, is_called from transport_loading_seq`.execute(t.db);
      const first = Number(rows[0]!.last_value) + (rows[0]!.is_called ? 1 : 0);
      return Array.from({ length: count }, (_, i) => `TRP-${today()}-${String(first + i).padStart(6, '0')}`);
    }
    async function takeNumbers(numbers: string[]) {
      for (const n of numbers) {
        await t.db
          .insertInto('transports')
          .values({
            loading_number: n,
            charger_first_name: 'Imported',
            charger_last_name: 'Record',
            vehicle_type_id: refs.vehicleType('Pickup'),
            loading_point: 'Legacy import',
            created_by: refs.user('admin'),
          })
          .execute();
      }
    }

    it('is retried once with the next number', async () => {
      const [taken, next] = await nextNumbers(2);
      await takeNumbers([taken!]);
      const res = await t.call('createTransport', { token: await t.token('agent'), body: transportBody(refs) });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.result.loadingNumber).toBe(next);
    });

    it('answers 409 LOADING_NUMBER_EXISTS when the next number is taken too, storing nothing', async () => {
      const numbers = await nextNumbers(2);
      await takeNumbers(numbers);
      const res = await t.call('createTransport', {
        token: await t.token('agent'),
        body: transportBody(refs, {
          loadingPoint: 'Clash dock',
          newCustomer: { firstName: 'Clash', lastName: 'Test', email: 'clash@mail.example' },
        }),
      });
      expect(res.status).toBe(409);
      expect(res.body.errors).toEqual({ code: 'LOADING_NUMBER_EXISTS', loadingNumber: numbers[1] });
      expect(await t.db.selectFrom('transports').select('id').where('loading_point', '=', 'Clash dock').execute()).toHaveLength(0);
      expect(await t.db.selectFrom('actors').select('id').where('email', '=', 'clash@mail.example').execute()).toHaveLength(0);
    });

    it('under an Idempotency-Key (in the request transaction, no savepoint): retried once, then 409 stored and replayed, nothing written', async () => {
      const token = await t.token('agent');
      const [taken, next] = await nextNumbers(2);
      await takeNumbers([taken!]);
      const retried = await t.call('createTransport', {
        token,
        body: transportBody(refs, { loadingPoint: 'Keyed retry dock' }),
        headers: { 'idempotency-key': `loading-retry-${taken}` },
      });
      expect(retried.status, JSON.stringify(retried.body)).toBe(201);
      expect(retried.body.result.loadingNumber).toBe(next);

      const numbers = await nextNumbers(2);
      await takeNumbers(numbers);
      const key = `loading-clash-${numbers[1]}`;
      const request = () =>
        t.call('createTransport', {
          token,
          body: transportBody(refs, {
            loadingPoint: 'Keyed clash dock',
            newCustomer: { firstName: 'Keyed', lastName: 'Clash', email: 'keyed-clash@mail.example' },
          }),
          headers: { 'idempotency-key': key },
        });
      const res = await request();
      expect(res.status).toBe(409);
      expect(res.body.errors).toEqual({ code: 'LOADING_NUMBER_EXISTS', loadingNumber: numbers[1] });
      expect(await t.db.selectFrom('transports').select('id').where('loading_point', '=', 'Keyed clash dock').execute()).toHaveLength(0);
      expect(await t.db.selectFrom('actors').select('id').where('email', '=', 'keyed-clash@mail.example').execute()).toHaveLength(0);
      const replay = await request();
      expect(replay.status).toBe(409);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toEqual(res.body);
    });
  });
});
