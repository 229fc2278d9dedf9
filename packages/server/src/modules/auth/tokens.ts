import { randomUUID } from 'node:crypto';
import fastifyJwt from '@fastify/jwt';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import { type AccessClaims, TokenInvalid } from '../../lib/identity.js';

export interface RefreshClaims {
  sub: number;
  sid: number;
  typ: 'refresh';
  jti: string;
  iat: number;
  exp: number;
}
export type AccessPayload = Omit<AccessClaims, 'typ' | 'jti' | 'iat' | 'exp'>;

/** What @fastify/jwt hands out per namespace (its types describe only the default one). */
interface JwtNamespace {
  sign(payload: object): string;
  verify<T>(token: string): T;
}

/**
 * Tolerated clock skew between this server and whoever checks `exp` / `iat`, in milliseconds: the
 * unit of fast-jwt's `clockTolerance` (it compares `exp * 1000 + clockTolerance` with `Date.now()`;
 * @fastify/jwt passes it on unconverted).
 */
const CLOCK_TOLERANCE_MS = 5_000;

/**
 * Registers @fastify/jwt twice (namespaces `access` and `refresh`). The two kinds differ in `typ` and
 * in audience, so neither is accepted in the other's place; only HS256 with the configured issuer
 * and audience is accepted, and `iss`, `aud`, `sub`, `typ`, `iat` and `exp` are all required.
 */
export async function registerJwt(app: FastifyInstance, jwt: Config['jwt']) {
  const refreshAudience = `${jwt.audience}:refresh`;
  const common = { secret: jwt.secret, decoratorName: 'jwtClaims' };
  const verify = { algorithms: ['HS256' as const], allowedIss: jwt.issuer, clockTolerance: CLOCK_TOLERANCE_MS };
  const required = ['iss', 'aud', 'sub', 'sid', 'jti', 'iat', 'exp', 'typ'];
  // A number of seconds: @fastify/jwt converts `expiresIn` to milliseconds for fast-jwt itself.
  await app.register(
    fastifyJwt,
    Object.assign({}, common, {
      namespace: 'access',
      sign: { algorithm: 'HS256' as const, iss: jwt.issuer, aud: jwt.audience, expiresIn: jwt.accessTtlSeconds },
      verify: Object.assign({}, verify, { allowedAud: jwt.audience, requiredClaims: [...required, 'access_level'] }),
    }),
  );
  await app.register(
    fastifyJwt,
    Object.assign({}, common, {
      namespace: 'refresh',
      sign: { algorithm: 'HS256' as const, iss: jwt.issuer, aud: refreshAudience, expiresIn: jwt.refreshTtlSeconds },
      verify: Object.assign({}, verify, { allowedAud: refreshAudience, requiredClaims: required }),
    }),
  );
  const spaces = app.jwt as unknown as Record<'access' | 'refresh', JwtNamespace>;
  return createTokens(spaces.access, spaces.refresh, jwt);
}

/** Access tokens verified, remembered by their text (see `verifyAccess`). */
const VERIFIED_ACCESS_TOKENS = 10_000;

function createTokens(access: JwtNamespace, refresh: JwtNamespace, jwt: Config['jwt']) {
  // Every authenticated request presents its access token: one that verified before is known by
  // its text (a Map lookup) until it expires, instead of fast-jwt's cache, which hashes the token
  // with SHA-256 on every request. Revocation is the session guard's business, not this cache's.
  const verified = new Map<string, AccessClaims>();
  return {
    accessTtlSeconds: jwt.accessTtlSeconds,
    refreshTtlSeconds: jwt.refreshTtlSeconds,
    signAccess: (payload: AccessPayload): string => access.sign(Object.assign({}, payload, { typ: 'access', jti: randomUUID() })),
    signRefresh: (sub: number, sid: number): string => refresh.sign({ sub, sid, typ: 'refresh', jti: randomUUID() }),
    /** The claims of an access token that verified before and has not expired yet, if `token` is one. */
    knownAccess(token: string): AccessClaims | undefined {
      const known = verified.get(token);
      return known !== undefined && known.exp * 1000 + CLOCK_TOLERANCE_MS > Date.now() ? known : undefined;
    },
    /** Throws a TokenInvalid with the reason when the token is not a valid access token. */
    verifyAccess(token: string): AccessClaims {
      const known = this.knownAccess(token);
      if (known !== undefined) return known;
      verified.delete(token);
      const claims = guard(() => access.verify<AccessClaims>(token));
      if (claims.typ !== 'access') throw new TokenInvalid('Token is not an access token');
      if (verified.size >= VERIFIED_ACCESS_TOKENS) verified.clear();
      verified.set(token, claims);
      return claims;
    },
    verifyRefresh(token: string): RefreshClaims {
      const claims = guard(() => refresh.verify<RefreshClaims>(token));
      if (claims.typ !== 'refresh') throw new TokenInvalid('Token is not a refresh token');
      return claims;
    },
  };
}
export type Tokens = ReturnType<typeof createTokens>;

/** Verifies, then refuses what fast-jwt lets through: an `iat` in the future or a non-numeric subject. */
function guard<T extends { iat: number; sub: unknown }>(verify: () => T): T {
  let claims: T;
  try {
    claims = verify();
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    // fast-jwt's TokenError, as @fastify/jwt rethrows it from `verify`.
    if (typeof code === 'string' && code.startsWith('FAST_JWT_')) {
      const reason =
        code === 'FAST_JWT_EXPIRED'
          ? 'Token expired'
          : code === 'FAST_JWT_INVALID_SIGNATURE'
            ? 'Token signature is invalid'
            : code === 'FAST_JWT_INVALID_CLAIM_VALUE' || code === 'FAST_JWT_MISSING_REQUIRED_CLAIM'
              ? 'Token claims are not accepted (issuer, audience or type)'
              : 'Token is malformed or uses an algorithm that is not accepted';
      throw new TokenInvalid(reason);
    }
    throw error;
  }
  if (typeof claims.iat !== 'number' || claims.iat * 1000 > Date.now() + CLOCK_TOLERANCE_MS) {
    throw new TokenInvalid('Token is issued in the future');
  }
  if (!Number.isInteger(claims.sub)) throw new TokenInvalid('Token claims are not accepted (issuer, audience or type)');
  return claims;
}
