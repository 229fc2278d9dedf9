import { verify } from '@node-rs/argon2';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdmin } from '../../src/db/admin.js';
import { connect } from '../../src/db/connect.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import type { Database } from '../../src/db/schema.js';
import { seedReferenceData } from '../../src/db/seed-reference.js';

/** A production database is bootstrapped with migrations, the reference data and a first administrator. */
let db: Kysely<Database>;
beforeAll(async () => {
  db = connect({ kind: 'pglite', dataDir: 'memory://' });
  await migrateToLatest(db);
});
afterAll(async () => db?.destroy());

const count = async (table: 'roles' | 'countries' | 'states' | 'vehicle_types' | 'complaint_types' | 'users') =>
  Number(
    (
      await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('reference data', () => {
  it('adds the system roles, countries with their states, vehicle and complaint types, and no user', async () => {
    expect(await seedReferenceData(db)).toBeGreaterThan(0);
    const roles = await db.selectFrom('roles').select(['id', 'code']).orderBy('id').execute();
    expect(roles.map((r) => r.code)).toEqual(['SUPER_ADMIN', 'ADMIN', 'AGENT', 'TEAM_MANAGER', 'SUPERVISOR']);
    expect(await count('countries')).toBeGreaterThan(0);
    expect(await count('states')).toBeGreaterThan(0);
    expect(await count('vehicle_types')).toBeGreaterThan(0);
    expect(await count('complaint_types')).toBeGreaterThan(0);
    expect(await count('users')).toBe(0);
  });

  it('is idempotent, and keeps what an administrator changed', async () => {
    await db.updateTable('vehicle_types').set({ description: 'Changed by an administrator' }).where('name', '=', 'Pickup').execute();
    const before = await count('vehicle_types');
    expect(await seedReferenceData(db)).toBe(0);
    expect(await count('vehicle_types')).toBe(before);
    const pickup = await db.selectFrom('vehicle_types').select('description').where('name', '=', 'Pickup').executeTakeFirstOrThrow();
    expect(pickup.description).toBe('Changed by an administrator');
  });
});

describe('admin:create', () => {
  it('creates a super administrator with an argon2 hash of the password', async () => {
    const user = await createAdmin(db, { username: 'ops', email: 'Ops@Transport-Ops.example', password: 'first-admin-password' });
    const row = await db.selectFrom('users').selectAll().where('id', '=', user.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ username: 'ops', email: 'ops@transport-ops.example', role_id: 1, is_active: true });
    expect(await verify(row.password_hash, 'first-admin-password')).toBe(true);
  });

  it('refuses a taken username, a short password and a malformed e-mail, naming the rule', async () => {
    await expect(
      createAdmin(db, { username: 'ops', email: 'other@transport-ops.example', password: 'long-enough-password' }),
    ).rejects.toThrow('a user with the username ops or the e-mail other@transport-ops.example already exists');
    await expect(createAdmin(db, { username: 'ops2', email: 'ops2@transport-ops.example', password: 'short' })).rejects.toThrow(
      '8 to 128 characters',
    );
    await expect(createAdmin(db, { username: 'ops3', email: 'not-an-email', password: 'long-enough-password' })).rejects.toThrow(
      'e-mail address',
    );
  });
});
