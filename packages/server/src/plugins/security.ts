import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { listOperations, loadContract, type OperationObject } from '../contract.js';
import { AppError, ListError } from '../lib/errors.js';
import { TokenInvalid, toAuthContext } from '../lib/identity.js';
import { UNLIMITED } from './rate-limit.js';
import { hookList } from '../http/route-hooks.js';
import { policies } from '../http/write-safety/plugin.js';
import { conditionalLimiter } from '../http/write-safety/preconditions.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Why the bearer token that came with the request was refused. */
    authError: ListError | null;
    /** The caller came with an `X-API-Key` (its service account), not a bearer token. */
    viaApiKey: boolean;
  }
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
  app.decorateRequest('viaApiKey', false);

  // A partner's `X-API-Key`: its service account becomes the caller (modules/api-keys/guard.ts).
  const identifyKey = (req: FastifyRequest, key: string, done: (error?: Error) => void) => {
    req.viaApiKey = true;
    app.apiKeys.authenticate(key).then(
      (auth) => {
        if (auth) req.auth = auth;
        else req.authError = new ListError(401, 'Authentication required', ['API key is unknown or revoked']);
        done();
      },
      (error: Error) => done(error),
    );
  };

  // Callback-style: identification runs on every request (and reads the session's row: modules/auth/sessions.ts).
  const identify: onRequestHookHandler = (req, _reply, done) => {
    const header = req.headers.authorization;
    const key = req.headers['x-api-key'];
    if (key !== undefined) {
      if (header !== undefined || typeof key !== 'string') {
        req.authError = new ListError(401, 'Authentication required', ['Send either a bearer token or one X-API-Key, not both']);
        return done();
      }
      return identifyKey(req, key, done);
    }
    if (header === undefined) return done();
    // A token that verified before is known by its text (its header passed the form check then):
    // only a token not seen yet is checked against the form and verified.
    let claims = header.startsWith('Bearer ') ? app.tokens.knownAccess(header.slice(7)) : undefined;
    if (claims === undefined) {
      const match = BEARER.exec(header);
      if (!match) {
        req.authError = new ListError(401, 'Authentication required', ['Authorization header must be "Bearer <access token>"']);
        return done();
      }
      try {
        claims = app.tokens.verifyAccess(match[1]!);
      } catch (error) {
        if (!(error instanceof TokenInvalid)) return done(error as Error);
        req.authError = new ListError(401, 'Authentication required', [error.message]);
        return done();
      }
    }
    const verified = claims;
    const settle = (active: boolean) => {
      if (active) req.auth = toAuthContext(verified);
      else req.authError = new ListError(401, 'Authentication required', ['Token has been revoked']);
    };
    const active = app.sessions.isActive(verified.sid);
    if (active === false) {
      settle(false);
      return done();
    }
    active.then(
      (value) => {
        settle(value);
        done();
      },
      (error: Error) => done(error),
    );
  };

  // The role check of each protected operation, from its security requirement in the contract: the
  // same rule as glue's handler (`securityHandlers` below), without glue's asynchronous wrapper.
  // The usual requirements: a bearer token of some roles, or that or an API key of the same roles.
  const requirements = new Map<string, { roles: string[]; apiKey: boolean }>();
  const publicOperations = new Set<string>();
  const contract = loadContract();
  for (const { operation } of listOperations(contract)) {
    const security = operation.security ?? (contract.security as OperationObject['security']) ?? [];
    if (security.length === 0) publicOperations.add(operation.operationId);
    const bearer = security[0];
    if (!bearer || Object.keys(bearer).length !== 1 || !Array.isArray(bearer.bearerAuth)) continue;
    const roles = bearer.bearerAuth;
    const key = security[1];
    const apiKey = key !== undefined && Object.keys(key).length === 1 && sameRoles(key.apiKeyAuth, roles);
    if (security.length === 1 || (security.length === 2 && apiKey)) requirements.set(operation.operationId, { roles, apiKey });
  }
  const enforceRoles =
    ({ roles, apiKey }: { roles: string[]; apiKey: boolean }): onRequestHookHandler =>
    (req, _reply, done) => {
      try {
        if (req.viaApiKey && !apiKey) throw new ListError(401, 'Authentication required', ['This operation does not accept an API key']);
        authorize(req, roles);
      } catch (error) {
        return done(error as Error);
      }
      done();
    };

  const limiter = app.rateLimit();
  // GETs that send an ETag: a 304 is not counted (plugins/write-safety.ts).
  const etagLimiter = conditionalLimiter(app, limiter);

  app.addHook('onRoute', (route) => {
    const operationId = (route.schema as { operationId?: string } | undefined)?.operationId;
    // Public operations (login, refresh, validation, ...) never read the bearer token: they are
    // counted against the client address, and a token (of any user) cannot lift their limit.
    const identifying = operationId !== undefined && publicOperations.has(operationId) ? [] : [identify];
    const conditional = route.method === 'GET' && operationId !== undefined && policies.get(operationId)?.etag === true;
    // Probes are never limited: their routes go without the limiter.
    const first = UNLIMITED.has(route.url) ? identifying : [...identifying, conditional ? etagLimiter : limiter];
    if (route.method === 'HEAD' || route.url.startsWith('/docs') || route.url === '/openapi.json') {
      route.onRequest = first;
      return;
    }
    const roles = operationId === undefined ? undefined : requirements.get(operationId);
    // glue's security handler, when the operation is protected; replaced by the direct check when its requirement is the usual one.
    const enforce = route.preHandler === undefined ? [] : roles !== undefined ? [enforceRoles(roles)] : hookList(route.preHandler);
    route.onRequest = [...first, ...hookList(route.onRequest), ...enforce];
    route.preHandler = undefined;
  });
});

/** Refuses the request unless an identified caller holds one of `roles` (any caller when empty). */
function authorize(req: FastifyRequest, roles: string[]): void {
  if (req.authError) throw req.authError;
  if (!req.auth) throw new ListError(401, 'Authentication required', ['Missing bearer token']);
  if (roles.length > 0 && !roles.includes(req.auth.accessLevel)) {
    throw new AppError('FORBIDDEN', { requiredRoles: roles }, 'Insufficient permissions');
  }
}

const sameRoles = (a: unknown, b: string[]) => Array.isArray(a) && a.length === b.length && a.every((r, i) => r === b[i]);

/** glue's handlers for the `bearerAuth` and `apiKeyAuth` schemes: `roles` are the role names of the requirement. */
export const securityHandlers = {
  async bearerAuth(req: FastifyRequest, _reply: FastifyReply, roles: string[]) {
    if (req.viaApiKey) throw new ListError(401, 'Authentication required', ['Missing bearer token']);
    authorize(req, roles);
  },
  async apiKeyAuth(req: FastifyRequest, _reply: FastifyReply, roles: string[]) {
    if (!req.viaApiKey) throw new ListError(401, 'Authentication required', ['Missing X-API-Key']);
    authorize(req, roles);
  },
};
