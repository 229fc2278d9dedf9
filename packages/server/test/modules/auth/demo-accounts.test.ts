import { describe, expect, it } from 'vitest';
import { testConfig } from '../../../src/config.js';
import { prepareDatabase } from '../../../src/db/prepare.js';
import { hashPassword } from '../../../src/lib/passwords.js';
import { DEMO_PASSWORD, useTestApp } from '../../support/app.js';

/**
 * A production server on a database holding demo data (the test database is seeded with it):
 * the demo password opens no session, whatever the account, and the start reports the demo
 * accounts and revokes their sessions.
 */
const t = useTestApp({ nodeEnv: 'production' });

const sessionsOf = async (username: string) =>
  t.db
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select(['s.id', 's.revoked_at', 's.revoked_reason'])
    .where('u.username', '=', username)
    .execute();

describe('demo accounts in production', () => {
  it('refuses the demo password with the answer of wrong credentials, and opens no session', async () => {
    for (const username of ['admin', 'agent']) {
      const before = (await sessionsOf(username)).length;
      const res = await t.call('login', { body: { username, password: DEMO_PASSWORD } });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({
        success: false,
        message: 'Invalid credentials',
        result: null,
        errors: ['username or password is incorrect'],
      });
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expect((await sessionsOf(username)).length).toBe(before);
    }
  });

  it('lets an account in with a password of its own', async () => {
    const password = 'Harbour-Crane-Night-2026';
    await t.db
      .updateTable('users')
      .set({ password_hash: await hashPassword(password) })
      .where('username', '=', 'supervisor')
      .execute();
    const res = await t.call('login', { body: { username: 'supervisor', password } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result.user.username).toBe('supervisor');
  });

  it('reports the demo accounts in one line at a production start and revokes their sessions', async () => {
    const admin = await t.db.selectFrom('users').select('id').where('username', '=', 'admin').executeTakeFirstOrThrow();
    const [open] = await t.db
      .insertInto('sessions')
      .values({ user_id: admin.id, expires_at: new Date(Date.now() + 3600_000), ip_address: '127.0.0.1', user_agent: 'test' })
      .returning('id')
      .execute();
    const lines: string[] = [];
    const config = testConfig({ nodeEnv: 'production', skipMigrations: true, seedDemoData: false });
    await prepareDatabase(t.db, config, (line) => lines.push(line));
    // supervisor has a password of its own since the test above.
    expect(lines).toEqual([
      'migrations skipped (SKIP_MIGRATIONS=true)',
      expect.stringMatching(
        /^production: demo accounts with the demo password found \(admin, manager, agent, agent2\): their logins are refused/,
      ),
    ]);
    const session = (await sessionsOf('admin')).find((s) => s.id === open!.id);
    expect(session?.revoked_reason).toBe('demo_account_in_production');
    expect(session?.revoked_at).not.toBeNull();
  });

  it('reports nothing outside production', async () => {
    const lines: string[] = [];
    await prepareDatabase(t.db, testConfig({ skipMigrations: true, seedDemoData: false }), (line) => lines.push(line));
    expect(lines).toEqual(['migrations skipped (SKIP_MIGRATIONS=true)']);
  });
});
