import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { expectUnauthenticated } from '../../support/expect.js';
import { createTransport, insertComplaint, loadRefs, type Refs } from './fixtures.js';

const t = useTestApp();
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

type Item = { id: number; loadingNumber: string; status: string; createdAt: string; loadingPoint: string; customer: { id: number } | null };

/** Every transport of a listing, through all its pages. */
async function listAll(user: 'agent' | 'agent2' | 'manager' | 'supervisor', query: Record<string, string | number> = {}): Promise<Item[]> {
  const token = await t.token(user);
  const items: Item[] = [];
  for (let page = 1; ; page++) {
    const res = await t.call('listTransports', { token, query: { ...query, page, limit: 100 } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    items.push(...res.body.result.data);
    if (page >= res.body.result.meta.total_pages) return items;
  }
}

async function creatorsOf(ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await t.db.selectFrom('transports').select('created_by').where('id', 'in', ids).execute();
  return new Set(rows.map((r) => r.created_by));
}

describe('GET /trade/transports (listTransports)', () => {
  it('shows an agent only their own transports', async () => {
    const mine = await createTransport(t, refs, 'agent', { loadingPoint: 'Scope check agent' });
    const other = await createTransport(t, refs, 'agent2', { loadingPoint: 'Scope check agent2' });
    const items = await listAll('agent');
    expect(items.map((i) => i.id)).toContain(mine.id);
    expect(items.map((i) => i.id)).not.toContain(other.id);
    expect(await creatorsOf(items.map((i) => i.id))).toEqual(new Set([refs.user('agent')]));
  });

  it("shows a team manager their team's transports but not another team's, and a supervisor all", async () => {
    const mine = await createTransport(t, refs, 'agent', { loadingPoint: 'Team scope agent' });
    const other = await createTransport(t, refs, 'agent2', { loadingPoint: 'Team scope agent2' });
    const managerIds = (await listAll('manager')).map((i) => i.id);
    expect(managerIds).toContain(mine.id);
    expect(managerIds).not.toContain(other.id);
    expect(await creatorsOf(managerIds)).toEqual(new Set([refs.user('agent'), refs.user('manager')]));
    const supervisorIds = (await listAll('supervisor')).map((i) => i.id);
    expect(supervisorIds).toEqual(expect.arrayContaining([mine.id, other.id]));
    const total = await t.db
      .selectFrom('transports')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(supervisorIds).toHaveLength(Number(total.n));
  });

  it('pages with meta and sorts by createdAt descending by default', async () => {
    const res = await t.call('listTransports', { token: await t.token('supervisor'), query: { page: 2, limit: 3 } });
    expect(res.status).toBe(200);
    const total = await t.db
      .selectFrom('transports')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(res.body.result.meta).toEqual({
      total: Number(total.n),
      current_page: 2,
      total_pages: Math.ceil(Number(total.n) / 3),
      limit: 3,
      total_is_exact: true,
      next_cursor: expect.any(String),
    });
    expect(res.body.result.data).toHaveLength(3);
    const all = await listAll('supervisor');
    const dates = all.map((i) => i.createdAt);
    expect([...dates].sort().reverse()).toEqual(dates);
    expect(res.body.result.data.map((i: Item) => i.id)).toEqual(all.slice(3, 6).map((i) => i.id));
  });

  it('sorts by loadingNumber ascending on request', async () => {
    const items = await listAll('agent', { sortBy: 'loadingNumber', sortOrder: 'ASC' });
    const numbers = items.map((i) => i.loadingNumber);
    expect(numbers).toEqual([...numbers].sort());
  });

  it('filters by status, vehicle type, customer, points and search', async () => {
    const van = refs.vehicleType('Light van');
    const pierre = refs.customer('Pierre');
    const target = await createTransport(t, refs, 'agent', {
      vehicleTypeId: van,
      customerId: pierre,
      loadingPoint: 'Bordeaux, Quai de Brazza',
      unloadingPoint: 'Toulouse, Fenouillet',
      productLabel: 'Wine crates 100%_special',
    });
    const has = (items: Item[]) => items.map((i) => i.id).includes(target.id);

    const pending = await listAll('agent', { status: 'PENDING' });
    expect(has(pending)).toBe(true);
    expect(pending.every((i) => i.status === 'PENDING')).toBe(true);
    expect(has(await listAll('agent', { status: 'VALIDATED' }))).toBe(false);

    const vans = await listAll('agent', { vehicleTypeId: van });
    expect(has(vans)).toBe(true);
    const vanRows = await t.db
      .selectFrom('transports')
      .select('vehicle_type_id')
      .where(
        'id',
        'in',
        vans.map((i) => i.id),
      )
      .execute();
    expect(vanRows.every((r) => r.vehicle_type_id === van)).toBe(true);

    const forPierre = await listAll('agent', { customerId: pierre });
    expect(has(forPierre)).toBe(true);
    expect(forPierre.every((i) => i.customer?.id === pierre)).toBe(true);

    expect((await listAll('agent', { loadingPoint: 'quai de BRAZZA' })).map((i) => i.id)).toEqual([target.id]);
    expect((await listAll('agent', { unloadingPoint: 'fenouillet' })).map((i) => i.id)).toEqual([target.id]);
    expect((await listAll('agent', { search: '100%_SPECIAL' })).map((i) => i.id)).toEqual([target.id]);
    expect((await listAll('agent', { search: target.loadingNumber })).map((i) => i.id)).toEqual([target.id]);
    // The pattern characters are literal: "%" alone matches only labels that contain "%".
    expect((await listAll('agent', { search: '%' })).map((i) => i.id)).toEqual([target.id]);
  });

  it('filters by a createdAt range, inclusive', async () => {
    const created = await createTransport(t, refs, 'agent', { loadingPoint: 'Range check' });
    const at = created.createdAt as string;
    const inRange = await listAll('agent', { startDate: at, endDate: at });
    expect(inRange.map((i) => i.id)).toContain(created.id);
    expect(inRange.every((i) => i.createdAt === at)).toBe(true);
    const later = new Date(Date.parse(at) + 1000).toISOString();
    expect((await listAll('agent', { startDate: later })).map((i) => i.id)).not.toContain(created.id);
  });

  it('answers 400 when startDate is after endDate, and for a limit above 100', async () => {
    const token = await t.token('agent');
    const reversed = await t.call('listTransports', {
      token,
      query: { startDate: '2026-02-01T00:00:00Z', endDate: '2026-01-01T00:00:00Z' },
    });
    expect(reversed.status).toBe(400);
    expect(reversed.body.errors).toEqual(['querystring/startDate must not be after endDate']);
    const tooMany = await t.call('listTransports', { token, query: { limit: 101 } });
    expect(tooMany.status).toBe(400);
  });
});

describe('GET /trade/transports/{id} (getTransportById)', () => {
  it('returns the detail with documents and complaint to the owner and to their team manager', async () => {
    const created = await createTransport(t, refs, 'agent', { customerId: refs.customer('Aminata') });
    const complaintId = await insertComplaint(t, refs, created.id);
    for (const user of ['agent', 'manager', 'supervisor'] as const) {
      const res = await t.call('getTransportById', { token: await t.token(user), params: { id: created.id } });
      expect(res.status, user).toBe(200);
      expect(res.body.result).toMatchObject({
        id: created.id,
        loadingNumber: created.loadingNumber,
        customer: { id: refs.customer('Aminata'), firstName: 'Aminata' },
        documents: [],
        complaints: [{ id: complaintId, label: 'Delivery delayed', status: 'PENDING' }],
      });
    }
  });

  it('answers 404 TRANSPORT_NOT_FOUND to agent2 and to a manager of another team, as for an absent id', async () => {
    const created = await createTransport(t, refs, 'agent2');
    for (const user of ['agent', 'manager'] as const) {
      const res = await t.call('getTransportById', { token: await t.token(user), params: { id: created.id } });
      expect(res.status).toBe(404);
      expect(res.body.errors).toEqual({ code: 'TRANSPORT_NOT_FOUND', transportId: created.id });
    }
    const absent = await t.call('getTransportById', { token: await t.token('agent'), params: { id: 999999 } });
    expect(absent.status).toBe(404);
    expect(absent.body.errors).toEqual({ code: 'TRANSPORT_NOT_FOUND', transportId: 999999 });
  });
});

describe('GET /trade/transports/vehicle-types (listVehicleTypes)', () => {
  it('lists the active vehicle types by name, without the retired one', async () => {
    const res = await t.call('listVehicleTypes', { token: await t.token('agent') });
    expect(res.status).toBe(200);
    const names = res.body.result.map((v: { name: string }) => v.name);
    expect(names).toEqual(['Delivery motorcycle', 'Light van', 'Pickup', 'Rigid truck 19 t', 'Semi-trailer truck']);
    expect(res.body.result.every((v: { isActive: boolean }) => v.isActive)).toBe(true);
    expect(res.body.result[0]).toMatchObject({ category: 'MOTORCYCLE', maxWeight: 150 });
  });

  it('answers 401 without a token', async () => {
    const res = await t.call('listVehicleTypes', {});
    expectUnauthenticated(res);
  });
});
