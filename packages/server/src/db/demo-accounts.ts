import type { Kysely } from 'kysely';
import { verifyPassword } from '../lib/passwords.js';
import type { Database } from './schema.js';
import { DEMO_PASSWORD } from './seed.js';

/** The accounts `seedDemoData` creates. */
export const DEMO_USERNAMES = ['admin', 'supervisor', 'manager', 'agent', 'agent2'];

/**
 * Production on a database that holds demo data (seeded by a development start, or copied from
 * one): the demo accounts still having the demo password are reported in one line and their open
 * sessions revoked. Their logins are refused by the login operation itself, which refuses the demo
 * password in production whatever the account. Answers the usernames found.
 */
export async function disableDemoAccounts(db: Kysely<Database>, log: (message: string) => void): Promise<string[]> {
  const rows = await db
    .selectFrom('users')
    .select(['id', 'username', 'password_hash'])
    .where('username', 'in', DEMO_USERNAMES)
    .orderBy('id')
    .execute();
  // The seed hashes the password once for every demo account: each distinct hash is verified once.
  const verdicts = new Map<string, Promise<boolean>>();
  const found: typeof rows = [];
  for (const row of rows) {
    if (!verdicts.has(row.password_hash)) verdicts.set(row.password_hash, verifyPassword(row.password_hash, DEMO_PASSWORD));
    if (await verdicts.get(row.password_hash)) found.push(row);
  }
  if (found.length === 0) return [];
  await db
    .updateTable('sessions')
    .set({ revoked_at: new Date(), revoked_reason: 'demo_account_in_production' })
    .where('revoked_at', 'is', null)
    .where(
      'user_id',
      'in',
      found.map((r) => r.id),
    )
    .execute();
  const names = found.map((r) => r.username).join(', ');
  log(
    `production: demo accounts with the demo password found (${names}): their logins are refused and their sessions revoked; give them passwords of their own (PUT /admin/users/{id}/password) or deactivate them`,
  );
  return found.map((r) => r.username);
}
