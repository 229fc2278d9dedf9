import type { Kysely } from 'kysely';
import type { CategoryScope, Database } from './schema.js';
import { referenceIds } from './seed-reference.js';

/*
 * Demo organization: the organization tree, staff accounts, customers, categories and tags, on top
 * of the reference data (seed-reference.ts). Deterministic: every date is relative to the seeding
 * day, names are fixed.
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

const STAFF: { key: StaffKey; roleId: number; actorRole: 'ADMIN' | 'AGENT'; first: string; last: string; phone: string; org: string }[] = [
  { key: 'admin', roleId: 2, actorRole: 'ADMIN', first: 'Claire', last: 'Dubois', phone: '+33 6 10 00 00 01', org: 'TOG' },
  { key: 'supervisor', roleId: 5, actorRole: 'AGENT', first: 'Moussa', last: 'Diop', phone: '+33 6 10 00 00 02', org: 'TOG-FRN' },
  { key: 'manager', roleId: 4, actorRole: 'AGENT', first: 'Julien', last: 'Moreau', phone: '+33 6 10 00 00 03', org: 'TOG-FRN-ALPHA' },
  { key: 'agent', roleId: 3, actorRole: 'AGENT', first: 'Sarah', last: 'Benali', phone: '+33 6 10 00 00 04', org: 'TOG-FRN-ALPHA' },
  { key: 'agent2', roleId: 3, actorRole: 'AGENT', first: 'Karim', last: 'El Idrissi', phone: '+33 6 10 00 00 05', org: 'TOG-FRN-BETA' },
];

// Some customers have only an e-mail, some only a phone: both shapes must work everywhere.
export const CUSTOMERS = [
  {
    key: 'fatou',
    first: 'Fatou',
    last: 'Ndiaye',
    email: 'fatou.ndiaye@mail.example',
    phone: '+221 77 123 45 67',
    address: '12 Rue Carnot, Dakar, Senegal',
  },
  {
    key: 'pierre',
    first: 'Pierre',
    last: 'Lambert',
    email: 'pierre.lambert@mail.example',
    phone: null,
    address: '8 Rue de la République, 69002 Lyon, France',
  },
  {
    key: 'youssef',
    first: 'Youssef',
    last: 'Alaoui',
    email: null,
    phone: '+212 612 345 678',
    address: 'Boulevard Zerktouni, Casablanca, Morocco',
  },
  {
    key: 'aminata',
    first: 'Aminata',
    last: 'Koné',
    email: 'aminata.kone@mail.example',
    phone: '+225 07 08 09 10 11',
    address: "Le Plateau, Abidjan, Côte d'Ivoire",
  },
  { key: 'marc', first: 'Marc', last: 'Durand', email: null, phone: '+33 6 98 76 54 32', address: null },
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
  ['urgent', '#F44336'],
  ['customs', '#3F51B5'],
  ['safety', '#FF5722'],
  ['maintenance', '#795548'],
  ['route-planning', '#009688'],
  ['regulation', '#9C27B0'],
  ['training', '#00BCD4'],
  ['platform', '#4CAF50'],
  ['tips', '#FFC107'],
  ['fuel', '#607D8B'],
];

async function idsBy<R extends { id: number }>(rows: Promise<R[]>, key: (row: R) => string): Promise<Ids> {
  return new Map((await rows).map((row) => [key(row), row.id]));
}

export async function seedOrganization(db: Kysely<Database>, passwordHash: string, at: Clock): Promise<SeedRefs> {
  const t0 = at(180);
  const { countries, vehicleTypes, complaintTypes } = await referenceIds(db);

  const fr = need(countries, 'FR');
  const orgs: Ids = new Map();
  for (const [code, name, type, parent] of [
    ['TOG', 'Transport Ops Group', 'COMPANY', null],
    ['TOG-FRN', 'France North Region', 'REGION', 'TOG'],
    ['TOG-FRN-ALPHA', 'Team Alpha', 'TEAM', 'TOG-FRN'],
    ['TOG-FRN-BETA', 'Team Beta', 'TEAM', 'TOG-FRN'],
  ] as const) {
    const row = await db
      .insertInto('organizations')
      .values({ code, name, type, parent_id: parent === null ? null : need(orgs, parent), country_id: fr, created_at: t0, updated_at: t0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    orgs.set(code, row.id);
  }

  // actors and users point at each other: actor first, then the user, then the back-link.
  const users = {} as Record<StaffKey, number>;
  for (const s of STAFF) {
    const email = `${s.key}@transport-ops.example`;
    const orgId = need(orgs, s.org);
    const actor = await db
      .insertInto('actors')
      .values({
        actor_role: s.actorRole,
        first_name: s.first,
        last_name: s.last,
        email,
        phone: s.phone,
        organization_id: orgId,
        created_at: t0,
        updated_at: t0,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const user = await db
      .insertInto('users')
      .values({
        username: s.key,
        email,
        password_hash: passwordHash,
        role_id: s.roleId,
        country_id: fr,
        organization_id: orgId,
        actor_id: actor.id,
        created_at: t0,
        updated_at: t0,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db.updateTable('actors').set({ user_id: user.id }).where('id', '=', actor.id).execute();
    users[s.key] = user.id;
  }
  await db.updateTable('organizations').set({ manager_user_id: users.manager }).where('code', '=', 'TOG-FRN-ALPHA').execute();
  await db.updateTable('organizations').set({ manager_user_id: users.supervisor }).where('code', '=', 'TOG-FRN').execute();

  const customers: Ids = new Map();
  for (const [i, c] of CUSTOMERS.entries()) {
    const row = await db
      .insertInto('actors')
      .values({
        actor_role: 'CUSTOMER',
        first_name: c.first,
        last_name: c.last,
        email: c.email,
        phone: c.phone,
        address: c.address,
        created_at: at(150 - i * 10),
        updated_at: at(150 - i * 10),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    customers.set(c.key, row.id);
  }

  const categoryRows = await db
    .insertInto('categories')
    .values(CATEGORIES.map((c) => Object.assign({}, c, { created_at: t0, updated_at: t0 })))
    .returning(['id', 'scope', 'name'])
    .execute();
  const categories: Record<CategoryScope, Ids> = { FORUM: new Map(), ANNOUNCEMENT: new Map(), TUTORIAL: new Map() };
  for (const c of categoryRows) categories[c.scope].set(c.name, c.id);
  const tags = await idsBy(
    db
      .insertInto('tags')
      .values(TAGS.map(([name, color]) => ({ name, color, created_at: t0, updated_at: t0 })))
      .returning(['id', 'name'])
      .execute(),
    (r) => r.name,
  );

  return { users, customers, countries, vehicleTypes, complaintTypes, categories, tags };
}
