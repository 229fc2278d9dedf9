import { type Kysely, sql } from 'kysely';
import type { Config } from '../../config.js';
import type { Database } from '../../db/schema.js';
import { metrics } from '../../lib/metrics.js';

type Rules = Config['loginThrottle'];

/** The row of one username (`login_throttles`). */
export interface ThrottleState {
  attempts: number;
  windowStartedAt: Date;
  lockouts: number;
  lockedUntil: Date | null;
  lastAttemptAt: Date;
}

/**
 * The key of a username: NFKC, trimmed, lower case, so that `Admin`, ` admin` and a full-width
 * `ａｄｍｉｎ` share one counter. Unknown usernames get one too: the answer does not depend on
 * whether the account exists.
 */
export const throttleKey = (username: string) => username.normalize('NFKC').trim().toLowerCase();

/**
 * The throttle's decision on one more attempt at `now`: refused while the username is locked
 * (the attempt is not counted, so a lock does not grow while it lasts); otherwise counted before
 * the password is checked (so parallel guesses cannot all slip in before the count), and the
 * `maxFailures`-th attempt of a window locks the username for the attempts after it, each lock
 * twice as long as the previous one up to `maxLockMs`. A successful login deletes the row.
 */
export function nextAttempt(
  current: ThrottleState | undefined,
  now: Date,
  rules: Rules,
): { refusedForMs: number; state: ThrottleState | undefined } {
  if (current?.lockedUntil && current.lockedUntil > now) {
    return { refusedForMs: current.lockedUntil.getTime() - now.getTime(), state: undefined };
  }
  const t = now.getTime();
  const fresh = !current || t - current.lastAttemptAt.getTime() >= rules.forgetMs;
  const state: ThrottleState = fresh
    ? { attempts: 0, windowStartedAt: now, lockouts: 0, lockedUntil: null, lastAttemptAt: now }
    : Object.assign({}, current, { lockedUntil: null, lastAttemptAt: now });
  if (t - state.windowStartedAt.getTime() >= rules.windowMs) {
    state.attempts = 0;
    state.windowStartedAt = now;
  }
  state.attempts += 1;
  if (state.attempts >= rules.maxFailures) {
    const lockMs = Math.min(rules.lockMs * 2 ** state.lockouts, rules.maxLockMs);
    state.lockouts += 1;
    state.lockedUntil = new Date(t + lockMs);
    // The next window opens when the lock ends.
    state.attempts = 0;
    state.windowStartedAt = state.lockedUntil;
  }
  return { refusedForMs: 0, state };
}

/**
 * Counts a login attempt on `key`, or answers how long it stays refused. One transaction with the
 * row locked, on the database's clock: instances and concurrent requests count together.
 */
export async function recordLoginAttempt(db: Kysely<Database>, key: string, rules: Rules): Promise<{ refusedForMs: number }> {
  return db.transaction().execute(async (trx) => {
    // One statement that inserts the row or locks the existing one, and returns it either way. (An
    // insert that ignores the conflict then a `select ... for update` found nothing when a
    // concurrent successful login deleted the row in between; an upsert retries its insert then.)
    const row = await trx
      .insertInto('login_throttles')
      .values({
        username_key: key,
        attempts: 0,
        window_started_at: sql`now()`,
        lockouts: 0,
        locked_until: null,
        last_attempt_at: sql`now()`,
      })
      .onConflict((oc) => oc.column('username_key').doUpdateSet({ username_key: (eb) => eb.ref('excluded.username_key') }))
      .returning(['attempts', 'window_started_at', 'lockouts', 'locked_until', 'last_attempt_at', sql<Date>`now()`.as('now')])
      .executeTakeFirstOrThrow();
    const current: ThrottleState = {
      attempts: row.attempts,
      windowStartedAt: new Date(row.window_started_at),
      lockouts: row.lockouts,
      lockedUntil: row.locked_until === null ? null : new Date(row.locked_until),
      lastAttemptAt: new Date(row.last_attempt_at),
    };
    // A row just inserted has no attempt yet: it is the first one.
    const { refusedForMs, state } = nextAttempt(row.attempts === 0 && row.lockouts === 0 ? undefined : current, new Date(row.now), rules);
    if (refusedForMs > 0) metrics.loginLockedRefusals.inc();
    if (state) {
      // A lock starts with this attempt (the counter is bumped before the commit: a rolled-back
      // attempt is a login that failed anyway).
      if (state.lockedUntil) metrics.loginLocks.inc();
      await trx
        .updateTable('login_throttles')
        .set({
          attempts: state.attempts,
          window_started_at: state.windowStartedAt,
          lockouts: state.lockouts,
          locked_until: state.lockedUntil,
          last_attempt_at: state.lastAttemptAt,
        })
        .where('username_key', '=', key)
        .execute();
    }
    return { refusedForMs };
  });
}

/** A successful login forgets the username's attempts and locks; rows idle for `forgetMs` go too. */
export async function clearLoginAttempts(db: Kysely<Database>, key: string, rules: Rules): Promise<void> {
  await db
    .deleteFrom('login_throttles')
    .where((eb) =>
      eb.or([eb('username_key', '=', key), eb('last_attempt_at', '<', sql<Date>`now() - make_interval(secs => ${rules.forgetMs / 1000})`)]),
    )
    .execute();
}
