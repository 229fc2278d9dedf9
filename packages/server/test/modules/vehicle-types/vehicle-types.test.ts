import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { expectInvalid, expectRoleRefused } from '../../support/expect.js';

const t = useTestApp();

const idOf = async (name: string) =>
  (await t.db.selectFrom('vehicle_types').select('id').where('name', '=', name).executeTakeFirstOrThrow()).id;
const usage = async (id: number) =>
  Number(
    (
      await t.db
        .selectFrom('transports')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('vehicle_type_id', '=', id)
        .executeTakeFirstOrThrow()
    ).n,
  );

async function create(body: Record<string, unknown>) {
  const res = await t.call('createConfigVehicleType', { token: await t.token('supervisor'), payload: body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.result as { id: number; name: string };
}

/** A transport using the vehicle type, so that it counts as used. */
async function useIn(vehicleTypeId: number) {
  const agent = await t.db.selectFrom('users').select('id').where('username', '=', 'agent').executeTakeFirstOrThrow();
  await t.db
    .insertInto('transports')
    .values({
      charger_first_name: 'Use',
      charger_last_name: 'Case',
      vehicle_type_id: vehicleTypeId,
      loading_point: 'Depot',
      created_by: agent.id,
    })
    .execute();
}

describe('GET /admin/configurations/vehicle-types (listConfigVehicleTypes)', () => {
  it('pages every vehicle type, active or not, by name, with its usage count', async () => {
    const res = await t.call('listConfigVehicleTypes', { token: await t.token('supervisor'), query: { limit: 100 } });
    expect(res.status).toBe(200);
    const data = res.body.result.data as { id: number; name: string; isActive: boolean; usageCount: number }[];
    const names = data.map((v) => v.name);
    expect(names).toEqual([...names].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1)));
    expect(names).toContain('Tanker truck (retired)');
    const semi = data.find((v) => v.name === 'Semi-trailer truck')!;
    expect(semi.usageCount).toBe(await usage(semi.id));
    expect(semi.usageCount).toBeGreaterThan(0);
    expect(res.body.result.meta).toMatchObject({ current_page: 1, limit: 100, total: data.length });
  });

  it('filters by isActive, category and search over name and description', async () => {
    const token = await t.token('admin');
    const inactive = await t.call('listConfigVehicleTypes', { token, query: { isActive: false } });
    expect(inactive.body.result.data.map((v: { name: string }) => v.name)).toEqual(['Tanker truck (retired)']);
    const light = await t.call('listConfigVehicleTypes', { token, query: { category: 'LIGHT' } });
    expect(light.body.result.data.map((v: { name: string }) => v.name)).toEqual(['Light van', 'Pickup']);
    const search = await t.call('listConfigVehicleTypes', { token, query: { search: 'ROUGH ROADS' } });
    expect(search.body.result.data.map((v: { name: string }) => v.name)).toEqual(['Pickup']);
  });
});

describe('POST /admin/configurations/vehicle-types (createConfigVehicleType)', () => {
  it('creates an active vehicle type with no usage, offered to users at once', async () => {
    const res = await t.call('createConfigVehicleType', {
      token: await t.token('supervisor'),
      body: { name: 'Refrigerated truck 19 t', description: 'Temperature-controlled box', maxWeight: 9000, category: 'HEAVY' },
    });
    expect(res.status).toBe(201);
    expect(res.body.result).toMatchObject({
      name: 'Refrigerated truck 19 t',
      description: 'Temperature-controlled box',
      maxWeight: 9000,
      category: 'HEAVY',
      isActive: true,
      usageCount: 0,
    });
    const offered = await t.call('listVehicleTypes', { token: await t.token('agent') });
    expect(offered.body.result.map((v: { id: number }) => v.id)).toContain(res.body.result.id);
  });

  it('creates an inactive one on request, hidden from users', async () => {
    const created = await create({ name: 'Car transporter', maxWeight: 20000, category: 'HEAVY', isActive: false });
    const res = await t.call('getConfigVehicleTypeById', { token: await t.token('admin'), params: { id: created.id } });
    expect(res.body.result).toMatchObject({ isActive: false, description: null });
    const offered = await t.call('listVehicleTypes', { token: await t.token('agent') });
    expect(offered.body.result.map((v: { id: number }) => v.id)).not.toContain(created.id);
  });

  it('answers 400 for a weight of 0 and 403 to a team manager', async () => {
    const zero = await t.call('createConfigVehicleType', {
      token: await t.token('admin'),
      body: { name: 'Weightless', maxWeight: 0, category: 'LIGHT' },
    });
    expectInvalid(zero, /^body\/maxWeight must be /);
    const manager = await t.call('createConfigVehicleType', {
      token: await t.token('manager'),
      body: { name: 'Cargo bike', maxWeight: 100, category: 'LIGHT' },
    });
    expectRoleRefused(manager, 'createConfigVehicleType');
    const rows = await t.db.selectFrom('vehicle_types').select('name').where('name', 'in', ['Weightless', 'Cargo bike']).execute();
    expect(rows).toEqual([]);
  });
});

describe('GET /admin/configurations/vehicle-types/{id} (getConfigVehicleTypeById)', () => {
  it('returns the vehicle type with its usage count', async () => {
    const id = await idOf('Light van');
    const res = await t.call('getConfigVehicleTypeById', { token: await t.token('supervisor'), params: { id } });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({
      id,
      name: 'Light van',
      category: 'LIGHT',
      maxWeight: 3500,
      isActive: true,
      usageCount: await usage(id),
    });
  });
});

describe('PATCH /admin/configurations/vehicle-types/{id} (updateConfigVehicleType)', () => {
  it('changes only the fields sent, and transports show the new values', async () => {
    const id = await idOf('Rigid truck 19 t');
    const res = await t.call('updateConfigVehicleType', {
      token: await t.token('supervisor'),
      params: { id },
      body: { description: 'Rigid truck, tail lift', maxWeight: 10000 },
    });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({
      id,
      name: 'Rigid truck 19 t',
      description: 'Rigid truck, tail lift',
      maxWeight: 10000,
      category: 'HEAVY',
    });
    const transport = await t.db.selectFrom('transports').select('id').where('vehicle_type_id', '=', id).executeTakeFirstOrThrow();
    const detail = await t.call('getTransportById', { token: await t.token('supervisor'), params: { id: transport.id } });
    expect(detail.body.result.vehicleType).toMatchObject({ id, description: 'Rigid truck, tail lift', maxWeight: 10000 });
  });

  it('accepts a change of case of its own name but refuses another type name with 409 ALREADY_EXISTS', async () => {
    const created = await create({ name: 'Tipper truck', maxWeight: 15000, category: 'HEAVY' });
    const token = await t.token('supervisor');
    const own = await t.call('updateConfigVehicleType', { token, params: { id: created.id }, body: { name: 'TIPPER truck' } });
    expect(own.status).toBe(200);
    expect(own.body.result.name).toBe('TIPPER truck');
    const taken = await t.call('updateConfigVehicleType', { token, params: { id: created.id }, body: { name: 'pickup' } });
    expect(taken.status).toBe(409);
    expect(taken.body.errors).toEqual({ code: 'ALREADY_EXISTS', resource: 'vehicle_type', field: 'name', value: 'pickup' });
  });

  it('answers 404 for an absent id and 400 for an empty body', async () => {
    const token = await t.token('supervisor');
    const absent = await t.call('updateConfigVehicleType', { token, params: { id: 9999 }, body: { maxWeight: 10 } });
    expect(absent.status).toBe(404);
    expect(absent.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'vehicle_type', id: 9999 });
    const empty = await t.call('updateConfigVehicleType', { token, params: { id: await idOf('Pickup') }, body: {} });
    expect(empty.status).toBe(400);
  });
});

describe('DELETE /admin/configurations/vehicle-types/{id} (deleteConfigVehicleType)', () => {
  it('answers 409 RESOURCE_IN_USE with the number of transports while transports use it', async () => {
    const created = await create({ name: 'Low loader', maxWeight: 60000, category: 'HEAVY' });
    await useIn(created.id);
    await useIn(created.id);
    const res = await t.call('deleteConfigVehicleType', { token: await t.token('admin'), params: { id: created.id } });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({ code: 'RESOURCE_IN_USE', resource: 'vehicle_type', id: created.id, usageCount: 2 });
    expect(await t.db.selectFrom('vehicle_types').select('id').where('id', '=', created.id).execute()).toHaveLength(1);
  });

  it('reads the usage from the counter kept with the transports: one moved away, one deleted, then the type goes', async () => {
    const created = await create({ name: 'Car carrier', maxWeight: 30000, category: 'HEAVY' });
    await useIn(created.id);
    await useIn(created.id);
    const used = await t.db.selectFrom('transports').select('id').where('vehicle_type_id', '=', created.id).orderBy('id').execute();
    const other = await idOf('Pickup');
    await t.db.updateTable('transports').set({ vehicle_type_id: other }).where('id', '=', used[0]!.id).execute();
    const admin = await t.token('admin');
    const one = await t.call('deleteConfigVehicleType', { token: admin, params: { id: created.id } });
    expect(one.status).toBe(409);
    expect(one.body.errors).toEqual({ code: 'RESOURCE_IN_USE', resource: 'vehicle_type', id: created.id, usageCount: 1 });
    await t.db.deleteFrom('transports').where('id', '=', used[1]!.id).execute();
    const gone = await t.call('deleteConfigVehicleType', { token: admin, params: { id: created.id } });
    expect(gone.status).toBe(200);
    expect(gone.body.message).toBe('Vehicle type deleted');
    expect(await t.db.selectFrom('vehicle_types').select('id').where('id', '=', created.id).execute()).toEqual([]);
  });
});

describe('PATCH /admin/configurations/vehicle-types/{id}/status (setConfigVehicleTypeStatus)', () => {
  it('deactivates a type: kept on its transports, hidden from users, refused for new transports; idempotent', async () => {
    const created = await create({ name: 'Minibus', maxWeight: 2000, category: 'LIGHT' });
    await useIn(created.id);
    const token = await t.token('supervisor');
    const res = await t.call('setConfigVehicleTypeStatus', { token, params: { id: created.id }, body: { isActive: false } });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Vehicle type deactivated');
    expect(res.body.result).toMatchObject({ id: created.id, isActive: false, usageCount: 1 });
    const again = await t.call('setConfigVehicleTypeStatus', { token, params: { id: created.id }, body: { isActive: false } });
    expect(again.status).toBe(200);
    expect(again.body.result.isActive).toBe(false);

    const offered = await t.call('listVehicleTypes', { token: await t.token('agent') });
    expect(offered.body.result.map((v: { id: number }) => v.id)).not.toContain(created.id);
    const refused = await t.call('createTransport', {
      token: await t.token('agent'),
      body: { chargerFirstName: 'A', chargerLastName: 'B', vehicleTypeId: created.id, loadingPoint: 'Depot' },
    });
    expect(refused.status).toBe(404);
    expect(refused.body.errors).toEqual({ code: 'VEHICLE_TYPE_NOT_FOUND', vehicleTypeId: created.id });
    expect(await usage(created.id)).toBe(1);

    const back = await t.call('setConfigVehicleTypeStatus', { token, params: { id: created.id }, body: { isActive: true } });
    expect(back.body).toMatchObject({ message: 'Vehicle type activated', result: { isActive: true } });
  });

  it('answers 404 for an absent id and 400 without isActive', async () => {
    const token = await t.token('supervisor');
    const absent = await t.call('setConfigVehicleTypeStatus', { token, params: { id: 9999 }, body: { isActive: true } });
    expect(absent.status).toBe(404);
    expect(absent.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'vehicle_type', id: 9999 });
    const invalid = await t.call('setConfigVehicleTypeStatus', { token, params: { id: await idOf('Pickup') }, payload: {} });
    expect(invalid.status).toBe(400);
  });
});
