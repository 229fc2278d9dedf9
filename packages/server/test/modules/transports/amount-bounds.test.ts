import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { expectInvalid } from '../../support/expect.js';
import { createTransport, loadRefs, type Refs, transportBody } from './fixtures.js';

const t = useTestApp();
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

/** The bound of every amount of a transport in the contract (`maximum` of Transport's numbers). */
const MAX = 1e12;
const TOO_LARGE = /^body\/totalProductValue \(productQuantity × averageUnitPrice when not sent\) must be <= 1000000000000/;

const storedTotal = async (id: number) =>
  (await t.db.selectFrom('transports').select('total_product_value').where('id', '=', id).executeTakeFirstOrThrow()).total_product_value;

// Every answer below goes through `t.call`, which validates it against the operation's schema:
// a value outside `minimum`/`maximum` fails the test there.
describe('transport amounts at the bounds of the contract', () => {
  it('a total computed exactly at 10^12 is stored and answered within the schema by create, get, list and update', async () => {
    const created = await createTransport(t, refs, 'agent', { productQuantity: 1e6, averageUnitPrice: 1e6 });
    expect(created).toMatchObject({ productQuantity: 1e6, averageUnitPrice: 1e6, totalProductValue: MAX });
    const token = await t.token('agent');
    const read = await t.call('getTransportById', { token, params: { id: created.id } });
    expect(read.body.result.totalProductValue).toBe(MAX);
    const list = await t.call('listTransports', { token, query: { search: created.loadingNumber } });
    expect(list.body.result.data.map((i) => i.id)).toEqual([created.id]);
    const updated = await t.call('updateTransport', { token, params: { id: created.id }, body: { productQuantity: 5e5 } });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.result).toMatchObject({ productQuantity: 5e5, averageUnitPrice: 1e6, totalProductValue: MAX / 2 });
    const stats = await t.call('getTransportStats', { token: await t.token('admin') });
    expect(stats.body.result.totalProductValue).toBeGreaterThanOrEqual(MAX / 2);
  });

  it('every amount sent at its maximum, and at its minimum, is answered as sent', async () => {
    const top = await createTransport(t, refs, 'agent', {
      productQuantity: MAX,
      averageWeight: MAX,
      averageUnitPrice: 1,
      totalProductValue: MAX,
    });
    expect(top).toMatchObject({ productQuantity: MAX, averageWeight: MAX, averageUnitPrice: 1, totalProductValue: MAX });
    const zero = await createTransport(t, refs, 'agent', { productQuantity: 0, averageWeight: 0, averageUnitPrice: MAX });
    expect(zero).toMatchObject({ productQuantity: 0, averageWeight: 0, averageUnitPrice: MAX, totalProductValue: 0 });
  });

  it('create refuses a computed total above 10^12 with 400 naming the fields, and stores nothing', async () => {
    const before = await t.db
      .selectFrom('transports')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    const res = await t.call('createTransport', {
      token: await t.token('agent'),
      body: transportBody(refs, { productQuantity: 1e6, averageUnitPrice: 1e7 }),
    });
    expectInvalid(res, TOO_LARGE);
    const after = await t.db
      .selectFrom('transports')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
  });

  it('create accepts the same quantity and price with a total of its own', async () => {
    const created = await createTransport(t, refs, 'agent', { productQuantity: 1e6, averageUnitPrice: 1e7, totalProductValue: 5e11 });
    expect(created.totalProductValue).toBe(5e11);
  });

  it.each([
    ['updateTransport', 'agent'],
    ['updateAdminTransport', 'admin'],
  ] as const)('%s refuses a total recomputed above 10^12 from the stored price, and changes nothing', async (operationId, user) => {
    const created = await createTransport(t, refs, 'agent', { productQuantity: 10, averageUnitPrice: 1e7 });
    const res = await t.call(operationId, { token: await t.token(user), params: { id: created.id }, body: { productQuantity: 1e6 } });
    expectInvalid(res, TOO_LARGE);
    expect(await storedTotal(created.id)).toBe(1e8);
    const row = await t.db.selectFrom('transports').select('product_quantity').where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(row.product_quantity).toBe(10);
  });
});
