import { DEMO_PASSWORD } from '../../db/seed.js';
import { hashPassword, verifyPassword } from '../../lib/passwords.js';
import { AppError, ListError } from '../../lib/errors.js';
import type { ModuleHandlers } from '../../http/handlers.js';
import { caller, TokenInvalid } from '../../lib/identity.js';
import { audit } from '../../lib/audit.js';
import { clearLoginAttempts, recordLoginAttempt, throttleKey } from './throttle-repository.js';
import {
  accessPayload,
  findAccountById,
  findAccountByUsername,
  openSession,
  revokeSessions,
  tokenActor,
  touchSession,
  usableSession,
} from './repository.js';
import type { ModuleRepresentations } from '../../http/write-safety/representations.js';

// Verifying against a fixed hash when the user does not exist keeps the timing of both failures
// alike (made at the first login, not at start).
let unknownUserHash: Promise<string> | undefined;
const unknownUser = () => {
  unknownUserHash ??= hashPassword('no such user: timing equaliser');
  return unknownUserHash;
};
const invalidCredentials = () => new ListError(401, 'Invalid credentials', ['username or password is incorrect']);
const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

export const authHandlers: ModuleHandlers<'login' | 'logout' | 'refreshToken' | 'getProfile' | 'validateToken'> = {
  async login(req) {
    const { db, tokens, config } = req.server;
    // Counted per username before the password is checked, whether the account exists or not.
    const key = throttleKey(req.body.username);
    const { refusedForMs } = await recordLoginAttempt(db, key, config.loginThrottle);
    if (refusedForMs > 0) {
      const retryAfterSeconds = Math.ceil(refusedForMs / 1000);
      await audit(db, req, {
        action: 'auth.login_locked',
        resource: { type: 'user', id: null },
        details: { username: req.body.username.slice(0, 150), retryAfterSeconds },
      });
      throw new AppError(
        'LOGIN_LOCKED',
        { retryAfterSeconds },
        `Too many failed logins for this username, retry in ${retryAfterSeconds} seconds`,
      );
    }
    const account = await findAccountByUsername(db, req.body.username);
    const valid = await verifyPassword(account?.password_hash ?? (await unknownUser()), req.body.password);
    // A deactivated account gets the same answer as a wrong password: no oracle for its password.
    // Production never serves the published demo password, whichever account holds it (db/demo-accounts.ts).
    const demo = config.nodeEnv === 'production' && req.body.password === DEMO_PASSWORD;
    if (!account || !valid || !account.is_active || demo) {
      // The refused login writes nothing else: its entry is a transaction of its own.
      const reason = !account ? 'unknown_username' : !valid ? 'wrong_password' : !account.is_active ? 'account_inactive' : 'demo_password';
      await audit(db, req, {
        action: 'auth.login_failed',
        resource: { type: 'user', id: account?.id ?? null },
        details: { username: req.body.username.slice(0, 150), reason },
      });
      throw invalidCredentials();
    }
    await clearLoginAttempts(db, key, config.loginThrottle);
    const expiresAt = new Date(Date.now() + tokens.refreshTtlSeconds * 1000);
    const sessionId = await openSession(db, account.id, expiresAt, {
      ip: req.ip,
      userAgent: req.headers['user-agent'] ?? null,
    });
    const actor = tokenActor(account);
    return {
      message: 'Login successful',
      result: {
        access_token: tokens.signAccess(accessPayload(account, sessionId)),
        refresh_token: tokens.signRefresh(account.id, sessionId),
        expires_in: tokens.accessTtlSeconds,
        token_type: 'Bearer',
        user: {
          id: account.id,
          username: account.username,
          email: account.email,
          role_id: account.role_id,
          country_id: account.country_id,
          actor: actor ?? null,
        },
      },
    };
  },

  async logout(req) {
    const auth = caller(req);
    const revoked = await revokeSessions(req.server.db, { sessionId: auth.sessionId }, 'logout');
    await req.server.sessions.forget(revoked);
    return { message: 'Logged out', result: null };
  },

  async refreshToken(req) {
    const { db, tokens } = req.server;
    let claims: ReturnType<typeof tokens.verifyRefresh>;
    try {
      claims = tokens.verifyRefresh(req.body.refresh_token);
    } catch (error) {
      if (error instanceof TokenInvalid) throw new ListError(401, 'Invalid refresh token', [error.message]);
      throw error;
    }
    const session = await usableSession(db, claims.sid, claims.sub);
    const account = session ? await findAccountById(db, claims.sub) : undefined;
    if (!session || !account?.is_active) throw new ListError(401, 'Invalid refresh token', ['Session has ended']);
    await touchSession(db, claims.sid);
    return {
      message: 'Token refreshed',
      result: {
        access_token: tokens.signAccess(accessPayload(account, claims.sid)),
        expires_in: tokens.accessTtlSeconds,
        token_type: 'Bearer',
      },
    };
  },

  async getProfile(req) {
    return { message: 'Profile retrieved', result: await profileRepresentations.getProfile.read(req) };
  },

  async validateToken(req) {
    const { tokens, sessions } = req.server;
    try {
      const claims = tokens.verifyAccess(req.body.token);
      if (await sessions.isActive(claims.sid)) {
        return {
          message: 'Token is valid',
          result: {
            isValid: true,
            user: {
              id: claims.sub,
              username: claims.username,
              role_id: claims.role_id,
              expires_at: new Date(claims.exp * 1000).toISOString(),
            },
          },
        };
      }
    } catch (error) {
      if (!(error instanceof TokenInvalid)) throw error;
    }
    return { message: 'Token is not valid', result: { isValid: false, user: null } };
  },
};

/** The caller's profile as its GET answers it (write-safety/representations.ts). */
export const profileRepresentations: ModuleRepresentations<'getProfile'> = {
  getProfile: {
    row: { table: 'users', id: (req) => caller(req).userId },
    async read(req) {
      const auth = caller(req);
      const account = await findAccountById(req.server.db, auth.userId);
      if (!account) throw new ListError(401, 'Authentication required', ['Account no longer exists']);
      return {
        id: account.id,
        username: account.username,
        email: account.email,
        role_id: account.role_id,
        role_name: account.role_name,
        country_id: account.country_id,
        country_name: account.country_name,
        is_active: account.is_active,
        // Set by every login, and a profile is only read with a token from one.
        last_login: iso(account.last_login ?? account.created_at)!,
        created_at: iso(account.created_at)!,
        actor:
          account.actor_id === null
            ? null
            : {
                id: account.actor_id,
                actor_role: account.actor_role!,
                first_name: account.first_name!,
                last_name: account.last_name!,
                email: account.actor_email,
                phone: account.actor_phone,
                is_active: account.actor_is_active!,
              },
      };
    },
  },
};
