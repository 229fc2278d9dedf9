import { randomUUID } from 'node:crypto';
import { createSigner, createVerifier, TokenError } from 'fast-jwt';
import type { Config } from '../../config.js';
import { enumValues } from '../../contract.js';

/** The access levels that security requirements name, lowest first (the contract's order ranks them). */
export const ACCESS_LEVELS = enumValues('RoleAccessLevel');
export type AccessLevel = (typeof ACCESS_LEVELS)[number];

export interface TokenActor {
  id: number;
  actor_role: string;
  first_name: string;
  last_name: string;
}

/** Claims of an access token: the specification's payload plus session, access level and organization. */
export interface AccessClaims {
  sub: number;
  username: string;
  email: string;
  role_id: number;
  country_id: number | null;
  actor?: TokenActor;
  access_level: AccessLevel;
  org_id: number | null;
  sid: number;
  typ: 'access';
  jti: string;
  iat: number;
  exp: number;
}
export interface RefreshClaims {
  sub: number;
  sid: number;
  typ: 'refresh';
  jti: string;
  iat: number;
  exp: number;
}
export type AccessPayload = Omit<AccessClaims, 'typ' | 'jti' | 'iat' | 'exp'>;

/**
 * Signs and verifies the two token kinds. They differ in `typ` and in audience, so neither is
 * accepted in the other's place; only HS256 with the configured issuer is accepted.
 */
export function createTokens(jwt: Config['jwt']) {
  const refreshAudience = `${jwt.audience}:refresh`;
  const common = { key: jwt.secret, algorithm: 'HS256' as const, iss: jwt.issuer };
  const signAccess = createSigner({ ...common, aud: jwt.audience, expiresIn: jwt.accessTtlSeconds * 1000 });
  const signRefresh = createSigner({ ...common, aud: refreshAudience, expiresIn: jwt.refreshTtlSeconds * 1000 });
  const verifierOptions = { key: jwt.secret, algorithms: ['HS256' as const], allowedIss: jwt.issuer, clockTolerance: 5_000 };
  const verifyAccess = createVerifier({
    ...verifierOptions,
    allowedAud: jwt.audience,
    requiredClaims: ['sub', 'sid', 'jti', 'iat', 'exp', 'typ', 'access_level'],
    cache: 10_000,
  });
  const verifyRefresh = createVerifier({
    ...verifierOptions,
    allowedAud: refreshAudience,
    requiredClaims: ['sub', 'sid', 'jti', 'iat', 'exp', 'typ'],
  });

  return {
    accessTtlSeconds: jwt.accessTtlSeconds,
    refreshTtlSeconds: jwt.refreshTtlSeconds,
    signAccess: (payload: AccessPayload): string => signAccess({ ...payload, typ: 'access', jti: randomUUID() }),
    signRefresh: (sub: number, sid: number): string => signRefresh({ sub, sid, typ: 'refresh', jti: randomUUID() }),
    /** Throws a TokenInvalid with the reason when the token is not a valid access token. */
    verifyAccess(token: string): AccessClaims {
      const claims = guard(() => verifyAccess(token)) as AccessClaims;
      if (claims.typ !== 'access') throw new TokenInvalid('Token is not an access token');
      return claims;
    },
    verifyRefresh(token: string): RefreshClaims {
      const claims = guard(() => verifyRefresh(token)) as RefreshClaims;
      if (claims.typ !== 'refresh') throw new TokenInvalid('Token is not a refresh token');
      return claims;
    },
  };
}
export type Tokens = ReturnType<typeof createTokens>;

export class TokenInvalid extends Error {}

function guard<T>(verify: () => T): T {
  try {
    return verify();
  } catch (error) {
    if (error instanceof TokenError) {
      const reason =
        error.code === TokenError.codes.expired
          ? 'Token expired'
          : error.code === TokenError.codes.invalidSignature
            ? 'Token signature is invalid'
            : error.code === TokenError.codes.invalidClaimValue || error.code === TokenError.codes.missingRequiredClaim
              ? 'Token claims are not accepted (issuer, audience or type)'
              : 'Token is malformed or uses an algorithm that is not accepted';
      throw new TokenInvalid(reason);
    }
    throw error;
  }
}
