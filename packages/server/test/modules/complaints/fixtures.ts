import { sql } from 'kysely';
import { expect } from 'vitest';
import type { DemoUser, TestApp } from '../../support/app.js';

/**
 * Complaints need transports, which belong to another module: the fixtures insert them straight
 * into the test database (the transports module is tested on its own), then every complaint
 * operation under test goes through the API.
 */

export interface Refs {
  user: (username: DemoUser) => number;
  customer: (firstName: string) => number;
  complaintType: (name: string) => number;
  vehicleType: number;
}

export async function loadRefs(t: TestApp): Promise<Refs> {
  const users = await t.db.selectFrom('users').select(['id', 'username']).execute();
  const customers = await t.db.selectFrom('actors').select(['id', 'first_name']).where('actor_role', '=', 'CUSTOMER').execute();
  const types = await t.db.selectFrom('complaint_types').select(['id', 'name']).execute();
  const vehicle = await t.db.selectFrom('vehicle_types').select('id').where('is_active', '=', true).orderBy('id').executeTakeFirstOrThrow();
  const pick = <R extends { id: number }>(rows: R[], match: (r: R) => boolean, what: string) => {
    const row = rows.find(match);
    if (!row) throw new Error(`fixture: no ${what}`);
    return row.id;
  };
  return {
    user: (username) => pick(users, (u) => u.username === username, `user ${username}`),
    customer: (name) => pick(customers, (c) => c.first_name === name, `customer ${name}`),
    complaintType: (name) => pick(types, (c) => c.name === name, `complaint type ${name}`),
    vehicleType: vehicle.id,
  };
}

/** A PENDING transport created by `owner`, with an optional customer. */
export async function insertTransport(t: TestApp, refs: Refs, owner: DemoUser, customerId: number | null = null) {
  return t.db
    .insertInto('transports')
    .values({
      charger_first_name: 'Hassan',
      charger_last_name: 'Bennani',
      vehicle_type_id: refs.vehicleType,
      loading_point: 'Lyon, Port Edouard Herriot',
      unloading_point: 'Marseille, Fos-sur-Mer terminal',
      vehicle_plate_number: 'GH-482-TK',
      customer_id: customerId,
      created_by: refs.user(owner),
    })
    .returning(['id', 'loading_number', 'customer_id'])
    .executeTakeFirstOrThrow();
}

/** Files a complaint through the API on a new transport of `owner` and returns its id. */
export async function fileComplaint(
  t: TestApp,
  refs: Refs,
  owner: DemoUser,
  body: Record<string, unknown> = {},
  customerId: number | null = null,
) {
  const transport = await insertTransport(t, refs, owner, customerId);
  const res = await t.call('createComplaint', {
    token: await t.token(owner),
    body: { transportId: transport.id, label: 'Pallets crushed at unloading', ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { id: res.body.result.id as number, transport };
}

/** Moves a complaint along a path of statuses as the supervisor, checking each step. */
export async function moveTo(t: TestApp, id: number, path: string[]) {
  const token = await t.token('supervisor');
  for (const status of path) {
    const res = await t.call('changeComplaintStatus', { token, params: { id }, payload: { status } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
}

export const countRows = async (
  t: TestApp,
  table: 'complaints' | 'complaint_status_history' | 'complaint_notifications' | 'complaint_attachments',
  where: { column: string; value: number },
) => {
  const row = await t.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(sql.ref(where.column), '=', where.value)
    .executeTakeFirstOrThrow();
  return Number(row.n);
};

/** Real file bytes: a 1×1 PNG, a 1×1 JPEG and a one-page PDF. */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
export const JPEG = Buffer.from(
  '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////' +
    'wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=',
  'base64',
);
export const PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n' +
    '3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
);
export const TEXT = Buffer.from('Delivery note: 12 pallets, 4 crushed. Signed by the consignee.\n');

export interface FilePart {
  name: string;
  bytes: Buffer;
  type?: string;
}

/** A multipart/form-data body as a browser sends it (FormData encoded by the platform). */
export async function multipart(fields: Record<string, string>, files: FilePart[]) {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  for (const f of files) form.append('files', new Blob([new Uint8Array(f.bytes)], { type: f.type ?? 'application/octet-stream' }), f.name);
  const res = new Response(form);
  return { payload: Buffer.from(await res.arrayBuffer()), headers: { 'content-type': res.headers.get('content-type')! } };
}
