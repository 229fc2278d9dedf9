import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { type CallResult, DEMO_PASSWORD, useTestApp } from '../../support/app.js';
import { expectError } from '../../support/expect.js';

/**
 * Logins are throttled per username across every address (POST /auth/login, 429 LOGIN_LOCKED),
 * on top of the per-address quota. The production rules: 5 failures in 15 min lock for 1 min,
 * then 2, 4 ... up to 60. Time passes by moving the username's row back in time, as the
 * database's clock moving forward would.
 */
const loginThrottle = { maxFailures: 5, windowMs: 15 * 60_000, lockMs: 60_000, maxLockMs: 3600_000, forgetMs: 24 * 3600_000 };
const ADDRESSES = ['198.51.100.1', '198.51.100.2', '198.51.100.3', '198.51.100.4', '198.51.100.5'];

const t = useTestApp({ loginThrottle, rateLimit: { anonymous: 1000, user: 1000, admin: 1000, windowMs: 3600_000 } });

const login = (username: string, password: string, remoteAddress: string) =>
  t.call('login', { body: { username, password }, remoteAddress });

/** The database clock moves `ms` forward for this username's throttle. */
async function passTime(key: string, ms: number) {
  const shift = sql`make_interval(secs => ${ms / 1000})`;
  await t.db
    .updateTable('login_throttles')
    .set({
      locked_until: sql`locked_until - ${shift}`,
      window_started_at: sql`window_started_at - ${shift}`,
      last_attempt_at: sql`last_attempt_at - ${shift}`,
    })
    .where('username_key', '=', key)
    .execute();
}

const throttleRow = (key: string) => t.db.selectFrom('login_throttles').selectAll().where('username_key', '=', key).executeTakeFirst();

function expectLocked(res: CallResult<'login'>): number {
  expectError(res, 429, 'LOGIN_LOCKED');
  const seconds = res.body.errors.retryAfterSeconds!;
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(res.headers['retry-after']).toBe(String(seconds));
  expect(res.body.message).toBe(`Too many failed logins for this username, retry in ${seconds} seconds`);
  return seconds;
}

describe('per-account login throttling', () => {
  it('locks an account guessed at from five addresses, refuses its right password while locked, and lets it in after the lock', async () => {
    const statuses: number[] = [];
    // Two wrong passwords from each of five addresses, in turn; the username written three ways.
    const spellings = ['manager', 'MANAGER', ' Manager '];
    for (let round = 0; round < 2; round += 1) {
      for (const [i, address] of ADDRESSES.entries()) {
        const res = await login(spellings[(round * 5 + i) % 3]!, `wrong-${round}-${i}`, address);
        statuses.push(res.status);
        if (res.status === 429) expectLocked(res);
        else expect(res.body.errors).toEqual(['username or password is incorrect']);
        // Each address is far below its own quota: only the account's count refuses.
        expect(Number(res.headers['x-ratelimit-remaining'])).toBeGreaterThan(990);
      }
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429, 429, 429]);

    const right = await login('manager', DEMO_PASSWORD, '203.0.113.9');
    const seconds = expectLocked(right);
    expect(seconds).toBeGreaterThan(50);
    expect(seconds).toBeLessThanOrEqual(60);
    expect(right.body.result).toBeNull();
    const row = await throttleRow('manager');
    expect(row?.lockouts).toBe(1);

    await passTime('manager', 30_000);
    expect(expectLocked(await login('manager', DEMO_PASSWORD, '203.0.113.9'))).toBeLessThanOrEqual(seconds - 29);
    await passTime('manager', 31_000);
    const after = await login('manager', DEMO_PASSWORD, '203.0.113.9');
    expect(after.status, JSON.stringify(after.body)).toBe(200);
    expect(after.body.result.user.username).toBe('manager');
    expect(await throttleRow('manager')).toBeUndefined();
  });

  it('locks each time for longer (1, 2, 4 minutes) until a day without attempts', async () => {
    const fail = () => login('supervisor', 'not-the-password', ADDRESSES[0]!);
    const locks: number[] = [];
    for (let lock = 0; lock < 3; lock += 1) {
      for (let i = 0; i < 5; i += 1) expect((await fail()).status).toBe(401);
      locks.push(expectLocked(await fail()));
      await passTime('supervisor', locks.at(-1)! * 1000);
    }
    // 60, 120 and 240 seconds (each rounded up from what is left when the refusal is answered).
    expect(locks.map((s) => Math.round(s / 60))).toEqual([1, 2, 4]);
    expect((await throttleRow('supervisor'))?.lockouts).toBe(3);
    // A day without attempts forgets the locks: the next lock is one minute again.
    await passTime('supervisor', 24 * 3600_000);
    for (let i = 0; i < 5; i += 1) expect((await fail()).status).toBe(401);
    expect(Math.round(expectLocked(await fail()) / 60)).toBe(1);
    expect((await throttleRow('supervisor'))?.lockouts).toBe(1);
  });

  it('answers an unknown username exactly as an existing one', async () => {
    const answers = async (username: string) => {
      const out: string[] = [];
      for (let i = 0; i < 7; i += 1) {
        const res = await login(username, 'guess', ADDRESSES[i % 5]!);
        out.push(`${res.status} ${JSON.stringify(res.body)} ${res.headers['retry-after'] ?? '-'}`);
      }
      return out;
    };
    const existing = await answers('agent2');
    const unknown = await answers('no-such-user-here');
    expect(unknown).toEqual(existing);
    expect(existing.filter((a) => a.startsWith('429'))).toHaveLength(2);
    expect(await throttleRow('no-such-user-here')).toMatchObject({ lockouts: 1 });
  });

  it('counts parallel guesses before checking them: at most five are checked', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => login('admin', `parallel-${i}`, ADDRESSES[i % 5]!)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
  });
});

describe('a bearer token does not lift the login limits', () => {
  const limited = useTestApp({ rateLimit: { anonymous: 4, user: 100, admin: 100, windowMs: 3600_000 } });

  it('counts logins that carry a valid token against the client address quota, not the token user quota', async () => {
    const address = '192.0.2.44';
    const first = await limited.call('login', { body: { username: 'admin', password: DEMO_PASSWORD }, remoteAddress: address });
    expect(first.status).toBe(200);
    const token = first.body.result.access_token;
    const withToken = (username: string) =>
      limited.call('login', { body: { username, password: 'wrong-password' }, token, remoteAddress: address });
    const second = await withToken('agent');
    expect(second.status).toBe(401);
    expect(second.headers['x-ratelimit-limit']).toBe('4');
    expect(second.headers['x-ratelimit-remaining']).toBe('2');
    expect((await limited.call('validateToken', { body: { token }, token, remoteAddress: address })).body.result.isValid).toBe(true);
    expect((await withToken('agent2')).status).toBe(401);
    const refused = await withToken('supervisor');
    expectError(refused, 429, 'RATE_LIMITED', { limit: 4 });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // The token still works where it belongs, on the user's own quota.
    const profile = await limited.call('getProfile', { token, remoteAddress: address });
    expect(profile.status).toBe(200);
    expect(profile.headers['x-ratelimit-limit']).toBe('100');
  });
});

describe('concurrent logins of one account', () => {
  // Every attempt is checked (no lock in reach), so successful logins reset the row while others count on it.
  const wide = useTestApp({
    loginThrottle: Object.assign({}, loginThrottle, { maxFailures: 10_000 }),
    rateLimit: { anonymous: 10_000, user: 10_000, admin: 10_000, windowMs: 3600_000 },
  });

  it('answers 50 logins of one account at once, right and wrong passwords, with 200 or 401 and never a 5xx', async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        wide.call('login', {
          body: { username: 'agent', password: i % 5 === 4 ? `wrong-${i}` : DEMO_PASSWORD },
          remoteAddress: ADDRESSES[i % 5],
        }),
      ),
    );
    const answers = results.map((r, i) => ({ i, status: r.status, message: r.body.message }));
    expect(answers.filter((a) => a.status >= 500)).toEqual([]);
    for (const [i, r] of results.entries()) {
      if (i % 5 === 4) {
        expect(r.status, JSON.stringify(r.body)).toBe(401);
      } else {
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        expect(r.body.result.user.username).toBe('agent');
      }
    }
  });
});
