import { type Kysely, sql } from 'kysely';
import type { CategoryScope, Database, VehicleCategory } from './schema.js';

/*
 * Demo reference data: roles, geography, the organization tree, staff accounts, customers and the
 * configuration lists. Deterministic: every date is relative to the seeding day, names are fixed.
 */

export type StaffKey = 'admin' | 'supervisor' | 'manager' | 'agent' | 'agent2';
export type Ids = Map<string, number>;

export interface SeedRefs {
  users: Record<StaffKey, number>;
  customers: Ids;
  countries: Ids;
  vehicleTypes: Ids;
  complaintTypes: Ids;
  categories: Record<CategoryScope, Ids>;
  tags: Ids;
}

/** A date `daysAgo` days before the seeding day (UTC midnight), at the given hour and minute. */
export type Clock = (daysAgo: number, hour?: number, minute?: number) => Date;

export function makeClock(now: Date): Clock {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return (daysAgo, hour = 9, minute = 0) => new Date(midnight + ((-daysAgo * 24 + hour) * 60 + minute) * 60_000);
}

export function need(ids: Ids, key: string): number {
  const id = ids.get(key);
  if (id === undefined) throw new Error(`seed: unknown key ${key}`);
  return id;
}

const ROLES = [
  { id: 1, code: 'SUPER_ADMIN', name: 'Super administrator', access_level: 'super_admin', description: 'Full access, including administrators.' },
  { id: 2, code: 'ADMIN', name: 'Administrator', access_level: 'admin', description: 'Administration of users, configuration and content.' },
  { id: 3, code: 'AGENT', name: 'Agent', access_level: 'agent', description: 'Own data only: transports, complaints, reports.' },
  { id: 4, code: 'TEAM_MANAGER', name: 'Team manager', access_level: 'team_manager', description: 'Validation level 1, reports, read access to team users.' },
  { id: 5, code: 'SUPERVISOR', name: 'Supervisor', access_level: 'supervisor', description: 'Validation level 2, report export, user management, system configuration.' },
] as const;

const COUNTRIES: { code: string; name: string; states: [string, string][] }[] = [
  { code: 'FR', name: 'France', states: [['IDF', 'Île-de-France'], ['ARA', 'Auvergne-Rhône-Alpes'], ['PAC', "Provence-Alpes-Côte d'Azur"]] },
  { code: 'MA', name: 'Morocco', states: [['06', 'Casablanca-Settat'], ['04', 'Rabat-Salé-Kénitra'], ['01', 'Tanger-Tétouan-Al Hoceïma']] },
  { code: 'SN', name: 'Senegal', states: [['DK', 'Dakar'], ['TH', 'Thiès'], ['SL', 'Saint-Louis']] },
  { code: 'CI', name: "Côte d'Ivoire", states: [['AB', 'Abidjan'], ['YM', 'Yamoussoukro'], ['VB', 'Vallée du Bandama']] },
];

const STAFF: { key: StaffKey; roleId: number; actorRole: 'ADMIN' | 'AGENT'; first: string; last: string; phone: string; org: string }[] = [
  { key: 'admin', roleId: 2, actorRole: 'ADMIN', first: 'Claire', last: 'Dubois', phone: '+33 6 10 00 00 01', org: 'TOG' },
  { key: 'supervisor', roleId: 5, actorRole: 'AGENT', first: 'Moussa', last: 'Diop', phone: '+33 6 10 00 00 02', org: 'TOG-FRN' },
  { key: 'manager', roleId: 4, actorRole: 'AGENT', first: 'Julien', last: 'Moreau', phone: '+33 6 10 00 00 03', org: 'TOG-FRN-ALPHA' },
  { key: 'agent', roleId: 3, actorRole: 'AGENT', first: 'Sarah', last: 'Benali', phone: '+33 6 10 00 00 04', org: 'TOG-FRN-ALPHA' },
  { key: 'agent2', roleId: 3, actorRole: 'AGENT', first: 'Karim', last: 'El Idrissi', phone: '+33 6 10 00 00 05', org: 'TOG-FRN-BETA' },
];

// Some customers have only an e-mail, some only a phone: both shapes must work everywhere.
export const CUSTOMERS = [
  { key: 'fatou', first: 'Fatou', last: 'Ndiaye', email: 'fatou.ndiaye@mail.example', phone: '+221 77 123 45 67', address: '12 Rue Carnot, Dakar, Senegal' },
  { key: 'pierre', first: 'Pierre', last: 'Lambert', email: 'pierre.lambert@mail.example', phone: null, address: '8 Rue de la République, 69002 Lyon, France' },
  { key: 'youssef', first: 'Youssef', last: 'Alaoui', email: null, phone: '+212 612 345 678', address: 'Boulevard Zerktouni, Casablanca, Morocco' },
  { key: 'aminata', first: 'Aminata', last: 'Koné', email: 'aminata.kone@mail.example', phone: '+225 07 08 09 10 11', address: 'Le Plateau, Abidjan, Côte d\'Ivoire' },
  { key: 'marc', first: 'Marc', last: 'Durand', email: null, phone: '+33 6 98 76 54 32', address: null },
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

const CATEGORIES: { scope: CategoryScope; name: string; description: string; color: string; icon: string }[] = [
  { scope: 'FORUM', name: 'General discussion', description: 'Anything about daily operations.', color: '#607D8B', icon: 'forum' },
  { scope: 'FORUM', name: 'Routes and logistics', description: 'Routes, border crossings, planning.', color: '#3F51B5', icon: 'route' },
  { scope: 'FORUM', name: 'Regulations', description: 'Rules, permits and compliance.', color: '#9C27B0', icon: 'gavel' },
  { scope: 'FORUM', name: 'Vehicles and maintenance', description: 'Fleet, fuel and maintenance.', color: '#795548', icon: 'build' },
  { scope: 'ANNOUNCEMENT', name: 'Company news', description: 'News from the company.', color: '#2196F3', icon: 'campaign' },
  { scope: 'ANNOUNCEMENT', name: 'Safety', description: 'Safety alerts and road conditions.', color: '#F44336', icon: 'warning' },
  { scope: 'ANNOUNCEMENT', name: 'System updates', description: 'Changes to the platform.', color: '#4CAF50', icon: 'system_update' },
  { scope: 'ANNOUNCEMENT', name: 'Regulations', description: 'New rules that affect operations.', color: '#9C27B0', icon: 'gavel' },
  { scope: 'TUTORIAL', name: 'Getting started', description: 'First steps on the platform.', color: '#00BCD4', icon: 'school' },
  { scope: 'TUTORIAL', name: 'Transports', description: 'Registering and following transports.', color: '#3F51B5', icon: 'local_shipping' },
  { scope: 'TUTORIAL', name: 'Complaints', description: 'Handling customer complaints.', color: '#FF9800', icon: 'report_problem' },
  { scope: 'TUTORIAL', name: 'Safety', description: 'Safe loading and driving.', color: '#F44336', icon: 'health_and_safety' },
];

const TAGS: [string, string][] = [
  ['urgent', '#F44336'], ['customs', '#3F51B5'], ['safety', '#FF5722'], ['maintenance', '#795548'],
  ['route-planning', '#009688'], ['regulation', '#9C27B0'], ['training', '#00BCD4'], ['platform', '#4CAF50'],
  ['tips', '#FFC107'], ['fuel', '#607D8B'],
];

async function idsBy<R extends { id: number }>(rows: Promise<R[]>, key: (row: R) => string): Promise<Ids> {
  return new Map((await rows).map((row) => [key(row), row.id]));
}

export async function seedReference(db: Kysely<Database>, passwordHash: string, at: Clock): Promise<SeedRefs> {
  const t0 = at(180);
  // System roles keep ids 1-5 (the interface names them); then move the identity past them.
  await db.insertInto('roles')
    .values(ROLES.map((r) => ({ ...r, is_system: true, created_at: t0, updated_at: t0 })))
    .execute();
  await sql`select setval(pg_get_serial_sequence('roles', 'id'), (select max(id) from roles))`.execute(db);

  const countries = await idsBy(
    db.insertInto('countries').values(COUNTRIES.map((c) => ({ code: c.code, name: c.name, created_at: t0, updated_at: t0 })))
      .returning(['id', 'code']).execute(),
    (r) => r.code,
  );
  await db.insertInto('states')
    .values(COUNTRIES.flatMap((c) => c.states.map(([code, name]) => ({
      country_id: need(countries, c.code), code, name, created_at: t0, updated_at: t0,
    }))))
    .execute();

  const fr = need(countries, 'FR');
  const orgs: Ids = new Map();
  for (const [code, name, type, parent] of [
    ['TOG', 'Transport Ops Group', 'COMPANY', null],
    ['TOG-FRN', 'France North Region', 'REGION', 'TOG'],
    ['TOG-FRN-ALPHA', 'Team Alpha', 'TEAM', 'TOG-FRN'],
    ['TOG-FRN-BETA', 'Team Beta', 'TEAM', 'TOG-FRN'],
  ] as const) {
    const row = await db.insertInto('organizations')
      .values({ code, name, type, parent_id: parent === null ? null : need(orgs, parent), country_id: fr, created_at: t0, updated_at: t0 })
      .returning('id').executeTakeFirstOrThrow();
    orgs.set(code, row.id);
  }

  // actors and users point at each other: actor first, then the user, then the back-link.
  const users = {} as Record<StaffKey, number>;
  for (const s of STAFF) {
    const email = `${s.key}@transport-ops.example`;
    const orgId = need(orgs, s.org);
    const actor = await db.insertInto('actors')
      .values({ actor_role: s.actorRole, first_name: s.first, last_name: s.last, email, phone: s.phone, organization_id: orgId, created_at: t0, updated_at: t0 })
      .returning('id').executeTakeFirstOrThrow();
    const user = await db.insertInto('users')
      .values({ username: s.key, email, password_hash: passwordHash, role_id: s.roleId, country_id: fr, organization_id: orgId, actor_id: actor.id, created_at: t0, updated_at: t0 })
      .returning('id').executeTakeFirstOrThrow();
    await db.updateTable('actors').set({ user_id: user.id }).where('id', '=', actor.id).execute();
    users[s.key] = user.id;
  }
  await db.updateTable('organizations').set({ manager_user_id: users.manager }).where('code', '=', 'TOG-FRN-ALPHA').execute();
  await db.updateTable('organizations').set({ manager_user_id: users.supervisor }).where('code', '=', 'TOG-FRN').execute();

  const customers: Ids = new Map();
  for (const [i, c] of CUSTOMERS.entries()) {
    const row = await db.insertInto('actors')
      .values({ actor_role: 'CUSTOMER', first_name: c.first, last_name: c.last, email: c.email, phone: c.phone, address: c.address, created_at: at(150 - i * 10), updated_at: at(150 - i * 10) })
      .returning('id').executeTakeFirstOrThrow();
    customers.set(c.key, row.id);
  }

  const vehicleTypes = await idsBy(
    db.insertInto('vehicle_types').values(VEHICLE_TYPES.map((v) => ({
      name: v.name, category: v.category, max_weight: v.maxWeight, description: v.description, is_active: v.active ?? true, created_at: t0, updated_at: t0,
    }))).returning(['id', 'name']).execute(),
    (r) => r.name,
  );
  const complaintTypes = await idsBy(
    db.insertInto('complaint_types').values(COMPLAINT_TYPES.map((c) => ({
      name: c.name, description: c.description, is_active: c.active ?? true, created_at: t0, updated_at: t0,
    }))).returning(['id', 'name']).execute(),
    (r) => r.name,
  );
  const categoryRows = await db.insertInto('categories')
    .values(CATEGORIES.map((c) => ({ ...c, created_at: t0, updated_at: t0 })))
    .returning(['id', 'scope', 'name']).execute();
  const categories: Record<CategoryScope, Ids> = { FORUM: new Map(), ANNOUNCEMENT: new Map(), TUTORIAL: new Map() };
  for (const c of categoryRows) categories[c.scope].set(c.name, c.id);
  const tags = await idsBy(
    db.insertInto('tags').values(TAGS.map(([name, color]) => ({ name, color, created_at: t0, updated_at: t0 })))
      .returning(['id', 'name']).execute(),
    (r) => r.name,
  );

  return { users, customers, countries, vehicleTypes, complaintTypes, categories, tags };
}
