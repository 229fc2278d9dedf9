import { expect } from 'vitest';
import type { DemoUser, TestApp } from '../../support/app.js';

/** Ids of the seeded reference rows, looked up by name (the seed fixes names, not ids). */
export interface Refs {
  vehicleType: (name: string) => number;
  customer: (firstName: string) => number;
  user: (username: DemoUser) => number;
  staffActor: (username: DemoUser) => number;
  organization: (code: string) => number;
}

export async function loadRefs(t: TestApp): Promise<Refs> {
  const vehicleTypes = await t.db.selectFrom('vehicle_types').select(['id', 'name']).execute();
  const customers = await t.db.selectFrom('actors').select(['id', 'first_name']).where('actor_role', '=', 'CUSTOMER').execute();
  const users = await t.db.selectFrom('users').select(['id', 'username', 'actor_id']).execute();
  const organizations = await t.db.selectFrom('organizations').select(['id', 'code']).execute();
  const find = <R>(rows: R[], match: (r: R) => boolean, what: string): R => {
    const row = rows.find(match);
    if (!row) throw new Error(`fixture: no ${what}`);
    return row;
  };
  return {
    vehicleType: (name) => (find(vehicleTypes, (v) => v.name === name, `vehicle type ${name}`) as { id: number }).id,
    customer: (firstName) => find(customers, (c) => c.first_name === firstName, `customer ${firstName}`).id,
    user: (username) => find(users, (u) => u.username === username, `user ${username}`).id,
    staffActor: (username) => find(users, (u) => u.username === username, `user ${username}`).actor_id!,
    organization: (code) => find(organizations, (o) => o.code === code, `organization ${code}`).id,
  };
}

/** A valid create body: a semi-trailer transport without customer, with `extra` fields on top. */
export function transportBody(refs: Refs, extra: Record<string, unknown> = {}) {
  return {
    chargerFirstName: 'Marc',
    chargerLastName: 'Dubois',
    chargerPhone: '+33 6 45 21 87 90',
    vehicleTypeId: refs.vehicleType('Semi-trailer truck'),
    loadingPoint: 'Lyon, Port Edouard Herriot',
    unloadingPoint: 'Marseille, Fos-sur-Mer terminal',
    vehiclePlateNumber: 'GH-482-KT',
    productLabel: 'Steel coils',
    productQuantity: 24,
    averageWeight: 950,
    averageUnitPrice: 1250,
    ...extra,
  };
}

/** Creates a transport as `user` through the API and returns its detail. */
export async function createTransport(t: TestApp, refs: Refs, user: DemoUser, extra: Record<string, unknown> = {}) {
  const res = await t.call('createTransport', { token: await t.token(user), body: transportBody(refs, extra) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.result as { id: number; loadingNumber: string; status: string; [key: string]: unknown };
}

/**
 * Applies a sequence of admin actions and checks each one succeeds. `VALIDATE` stands for both
 * validation levels (level 1 by the administrator, level 2 by the supervisor); `VALIDATE_1` for
 * level 1 alone. Every other action is the supervisor's.
 */
export async function applyActions(t: TestApp, id: number, actions: string[]) {
  const steps = actions.flatMap((a) =>
    a === 'VALIDATE'
      ? [
          ['admin', 'VALIDATE'],
          ['supervisor', 'VALIDATE'],
        ]
      : a === 'VALIDATE_1'
        ? [['admin', 'VALIDATE']]
        : [['supervisor', a]],
  ) as [DemoUser, string][];
  for (const [user, action] of steps) {
    const res = await t.call('applyTransportAction', { token: await t.token(user), params: { id }, payload: { action } });
    expect(res.status, `${action}: ${JSON.stringify(res.body)}`).toBe(200);
  }
}

/** A complaint row about a transport (the complaint operations belong to another module). */
export async function insertComplaint(t: TestApp, refs: Refs, transportId: number) {
  const row = await t.db
    .insertInto('complaints')
    .values({ label: 'Delivery delayed', transport_id: transportId, created_by: refs.user('agent') })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
