import type { components } from '@transport-ops/contract';
import { enumValues } from '../contract.js';
import { ListError } from './errors.js';

/*
 * Who is calling. The access levels come from the contract's `RoleAccessLevel`; an access token's
 * claims (modules/auth/tokens.ts signs and verifies them) name a caller, which the security plugin
 * (plugins/security.ts) or an API key (modules/api-keys/guard.ts) sets on the request, and which
 * handlers, rules and repositories read. Plugins, modules, lib and db import it from here; this file
 * imports neither a plugin nor a module.
 */

/** The access levels that security requirements name, lowest first (the contract's order ranks them). */
export const ACCESS_LEVELS = enumValues('RoleAccessLevel');
export type AccessLevel = components['schemas']['RoleAccessLevel'];

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

/**
 * A token that does not verify (expired, badly signed, of the other kind, claims not accepted), with
 * the reason as its message: modules/auth/tokens.ts throws it, the security plugin and the auth
 * handlers turn it into their 401 answers.
 */
export class TokenInvalid extends Error {}

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
    /** The caller, when a valid bearer token or API key came with the request. */
    auth: AuthContext | null;
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
export function caller(req: { auth: AuthContext | null }): AuthContext {
  if (!req.auth) throw new ListError(401, 'Authentication required', ['Missing bearer token']);
  return req.auth;
}
