import { type Kysely, sql } from 'kysely';
import type { Database, VehicleCategory } from './schema.js';

/*
 * Reference data: what every installation needs, production included. The system roles (ids 1-5
 * are named by the interface), countries and their states, vehicle types and complaint types.
 * Idempotent: rows that already exist (by id, code or name) are left as they are, so it runs on
 * every start, also after an administrator changed or added entries.
 */

const ROLES = [
  {
    id: 1,
    code: 'SUPER_ADMIN',
    name: 'Super administrator',
    access_level: 'super_admin',
    description: 'Full access, including administrators.',
  },
  {
    id: 2,
    code: 'ADMIN',
    name: 'Administrator',
    access_level: 'admin',
    description: 'Administration of users, configuration and content.',
  },
  { id: 3, code: 'AGENT', name: 'Agent', access_level: 'agent', description: 'Own data only: transports, complaints, reports.' },
  {
    id: 4,
    code: 'TEAM_MANAGER',
    name: 'Team manager',
    access_level: 'team_manager',
    description: 'Validation level 1, reports, read access to team users.',
  },
  {
    id: 5,
    code: 'SUPERVISOR',
    name: 'Supervisor',
    access_level: 'supervisor',
    description: 'Validation level 2, report export, user management, system configuration.',
  },
] as const;

const COUNTRIES: { code: string; name: string; states: [string, string][] }[] = [
  {
    code: 'FR',
    name: 'France',
    states: [
      ['IDF', 'Île-de-France'],
      ['ARA', 'Auvergne-Rhône-Alpes'],
      ['PAC', "Provence-Alpes-Côte d'Azur"],
    ],
  },
  {
    code: 'MA',
    name: 'Morocco',
    states: [
      ['06', 'Casablanca-Settat'],
      ['04', 'Rabat-Salé-Kénitra'],
      ['01', 'Tanger-Tétouan-Al Hoceïma'],
    ],
  },
  {
    code: 'SN',
    name: 'Senegal',
    states: [
      ['DK', 'Dakar'],
      ['TH', 'Thiès'],
      ['SL', 'Saint-Louis'],
    ],
  },
  {
    code: 'CI',
    name: "Côte d'Ivoire",
    states: [
      ['AB', 'Abidjan'],
      ['YM', 'Yamoussoukro'],
      ['VB', 'Vallée du Bandama'],
    ],
  },
];

const VEHICLE_TYPES: { name: string; category: VehicleCategory; maxWeight: number; description: string; active?: false }[] = [
  { name: 'Semi-trailer truck', category: 'HEAVY', maxWeight: 40000, description: 'Articulated tractor with a 13.6 m trailer.' },
  { name: 'Rigid truck 19 t', category: 'HEAVY', maxWeight: 19000, description: 'Two-axle rigid truck for regional distribution.' },
  { name: 'Light van', category: 'LIGHT', maxWeight: 3500, description: 'Van up to 3.5 t for urban deliveries.' },
  { name: 'Pickup', category: 'LIGHT', maxWeight: 1200, description: 'Pickup truck for small loads and rough roads.' },
  { name: 'Delivery motorcycle', category: 'MOTORCYCLE', maxWeight: 150, description: 'Motorcycle with a top box for parcels.' },
  { name: 'Tanker truck (retired)', category: 'HEAVY', maxWeight: 32000, description: 'No longer used for new transports.', active: false },
];

const COMPLAINT_TYPES: { name: string; description: string; active?: false }[] = [
  { name: 'Delivery delay', description: 'The goods arrived later than agreed.' },
  { name: 'Damaged goods', description: 'Goods were damaged during loading, transport or unloading.' },
  { name: 'Missing goods', description: 'Part of the load did not arrive.' },
  { name: 'Billing dispute', description: 'The amount invoiced does not match the agreement.' },
  { name: 'Driver behaviour', description: 'Conduct of the driver or crew.' },
  { name: 'Other (legacy)', description: 'Former catch-all type, kept for old records.', active: false },
];

/** Inserts the missing reference rows; returns how many rows were added. */
export async function seedReferenceData(db: Kysely<Database>, now = new Date()): Promise<number> {
  const stamp = { created_at: now, updated_at: now };
  let added = 0;
  const count = (rows: unknown[]) => {
    added += rows.length;
  };
  count(
    await db
      .insertInto('roles')
      .values(ROLES.map((r) => Object.assign({}, r, { is_system: true }, stamp)))
      .onConflict((oc) => oc.doNothing())
      .returning('id')
      .execute(),
  );
  // Roles created later get ids past the system ones.
  await sql`select setval(pg_get_serial_sequence('roles', 'id'), greatest((select max(id) from roles), 5))`.execute(db);
  count(
    await db
      .insertInto('countries')
      .values(COUNTRIES.map((c) => ({ code: c.code, name: c.name, ...stamp })))
      .onConflict((oc) => oc.doNothing())
      .returning('id')
      .execute(),
  );
  const { countries } = await referenceIds(db);
  const states = COUNTRIES.flatMap((c) => {
    const countryId = countries.get(c.code);
    return countryId === undefined ? [] : c.states.map(([code, name]) => ({ country_id: countryId, code, name, ...stamp }));
  });
  if (states.length > 0) {
    count(
      await db
        .insertInto('states')
        .values(states)
        .onConflict((oc) => oc.doNothing())
        .returning('id')
        .execute(),
    );
  }
  count(
    await db
      .insertInto('vehicle_types')
      .values(
        VEHICLE_TYPES.map((v) => ({
          name: v.name,
          category: v.category,
          max_weight: v.maxWeight,
          description: v.description,
          is_active: v.active ?? true,
          ...stamp,
        })),
      )
      .onConflict((oc) => oc.doNothing())
      .returning('id')
      .execute(),
  );
  count(
    await db
      .insertInto('complaint_types')
      .values(COMPLAINT_TYPES.map((c) => ({ name: c.name, description: c.description, is_active: c.active ?? true, ...stamp })))
      .onConflict((oc) => oc.doNothing())
      .returning('id')
      .execute(),
  );
  return added;
}

/** Ids of the reference rows: countries by code, vehicle and complaint types by name. */
export async function referenceIds(db: Kysely<Database>) {
  const byKey = <R extends { id: number }>(rows: R[], key: (row: R) => string) => new Map(rows.map((r) => [key(r), r.id]));
  return {
    countries: byKey(await db.selectFrom('countries').select(['id', 'code']).execute(), (r) => r.code),
    vehicleTypes: byKey(await db.selectFrom('vehicle_types').select(['id', 'name']).execute(), (r) => r.name),
    complaintTypes: byKey(await db.selectFrom('complaint_types').select(['id', 'name']).execute(), (r) => r.name),
  };
}
