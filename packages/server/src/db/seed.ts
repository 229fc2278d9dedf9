import { hashPassword } from '../lib/passwords.js';
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.js';
import { seedCommunity } from './seed-community.js';
import { makeClock, seedOrganization } from './seed-organization.js';
import { seedReferenceData } from './seed-reference.js';
import { seedOperations } from './seed-transports.js';

/** Password of every demo account (admin, supervisor, manager, agent, agent2). */
export const DEMO_PASSWORD = 'demo1234';

/**
 * Fills an empty database with demo data (and the reference data it builds on), in one transaction. Does nothing and returns false when
 * users already exist. Deterministic apart from the password salt; dates are relative to today (the
 * positions of the transport under way, to the seeding instant).
 */
export async function seedDemoData(db: Kysely<Database>): Promise<boolean> {
  if (await hasUsers(db)) return false;
  const passwordHash = await hashPassword(DEMO_PASSWORD); // argon2id; hashed once, shared by all demo accounts
  const now = new Date();
  const at = makeClock(now);
  return db.transaction().execute(async (trx) => {
    // Two seeders racing: the second waits here, then sees the first one's users and stops.
    await sql`lock table users in share row exclusive mode`.execute(trx);
    if (await hasUsers(trx)) return false;
    await seedReferenceData(trx, at(180));
    const refs = await seedOrganization(trx, passwordHash, at);
    await seedOperations(trx, refs, at, now);
    await seedCommunity(trx, refs, at);
    return true;
  });
}

async function hasUsers(db: Kysely<Database>): Promise<boolean> {
  return (await db.selectFrom('users').select('id').limit(1).executeTakeFirst()) !== undefined;
}
