import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { AppError, ListError } from '../http/errors.js';
import { TokenInvalid, type AccessClaims, type AccessLevel } from '../modules/auth/tokens.js';

/** Who is calling: the verified access token of an active session. */
export interface AuthContext {
  userId: number;
  username: string;
  email: string;
  roleId: number;
  accessLevel: AccessLevel;
  countryId: number | null;
  organizationId: number | null;
  actorId: number | null;
  sessionId: number;
  tokenId: string;
  expiresAt: Date;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller, when a valid bearer token came with the request. */
    auth: AuthContext | null;
    /** Why the bearer token that came with the request was refused. */
    authError: ListError | null;
  }
}

export function toAuthContext(claims: AccessClaims): AuthContext {
  return {
    userId: claims.sub,
    username: claims.username,
    email: claims.email,
    roleId: claims.role_id,
    accessLevel: claims.access_level,
    countryId: claims.country_id,
    organizationId: claims.org_id,
    actorId: claims.actor?.id ?? null,
    sessionId: claims.sid,
    tokenId: claims.jti,
    expiresAt: new Date(claims.exp * 1000),
  };
}

/** The caller of a protected operation (its security handler has run). */
export function caller(req: FastifyRequest): AuthContext {
  if (!req.auth) throw new ListError(401, 'Authentication required', ['Missing bearer token']);
  return req.auth;
}

const BEARER = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*)$/;

/**
 * Authentication runs in `onRequest`, before the body is read: it identifies the caller, then the
 * rate limiter counts the request against that identity, then glue's security handler (moved
 * here from `preHandler`) enforces the operation's role names. An unauthenticated request to a
 * protected operation is refused before its body is parsed or validated.
 */
export default fp(async function security(app: FastifyInstance) {
  app.decorateRequest('auth', null);
  app.decorateRequest('authError', null);

  const identify: onRequestHookHandler = async (req) => {
    const header = req.headers.authorization;
    if (header === undefined) return;
    const match = BEARER.exec(header);
    if (!match) {
      req.authError = new ListError(401, 'Authentication required', ['Authorization header must be "Bearer <access token>"']);
      return;
    }
    try {
      const claims = app.tokens.verifyAccess(match[1]!);
      if (!(await app.sessions.isActive(claims.sid))) {
        req.authError = new ListError(401, 'Authentication required', ['Token has been revoked']);
        return;
      }
      req.auth = toAuthContext(claims);
    } catch (error) {
      if (!(error instanceof TokenInvalid)) throw error;
      req.authError = new ListError(401, 'Authentication required', [error.message]);
    }
  };

  const limiter = app.rateLimit();

  app.addHook('onRoute', (route) => {
    if (route.method === 'HEAD' || route.url.startsWith('/docs') || route.url === '/openapi.json') {
      route.onRequest = [identify, limiter];
      return;
    }
    const enforce = route.preHandler; // glue's security handler, when the operation is protected
    const before = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
    route.onRequest = [identify, limiter, ...before, ...(enforce ? (Array.isArray(enforce) ? enforce : [enforce]) : [])];
    route.preHandler = undefined;
  });
});

/** glue's handler for the `bearerAuth` scheme: `roles` are the role names of the requirement. */
export const securityHandlers = {
  async bearerAuth(req: FastifyRequest, _reply: FastifyReply, roles: string[]) {
    if (req.authError) throw req.authError;
    if (!req.auth) throw new ListError(401, 'Authentication required', ['Missing bearer token']);
    if (roles.length > 0 && !roles.includes(req.auth.accessLevel)) {
      throw new AppError('FORBIDDEN', { requiredRoles: roles }, 'Insufficient permissions');
    }
  },
};
