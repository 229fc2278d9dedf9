import { createSigner } from 'fast-jwt';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, DEMO_PASSWORD, useTestApp } from '../support/app.js';
import { expectInvalid, expectUnauthenticated } from '../support/expect.js';

const t = useTestApp();
let login: { access_token: string; refresh_token: string; user: { id: number } };

beforeAll(async () => {
  login = (await t.call('login', { body: { username: 'agent', password: DEMO_PASSWORD } })).body.result;
});

/** A token like the server's, signed with `overrides` applied (secret, algorithm, claims). */
function forge(
  overrides: { key?: string; algorithm?: 'HS256' | 'HS512' | 'none'; claims?: Record<string, unknown>; drop?: string[] } = {},
) {
  const { jwt } = t.app.config;
  const decoded = JSON.parse(Buffer.from(login.access_token.split('.')[1]!, 'base64url').toString());
  const { iat, ...claims } = { ...decoded, exp: Math.floor(Date.now() / 1000) + 60, ...overrides.claims };
  const keepIat = overrides.claims?.iat !== undefined || overrides.drop?.includes('iat');
  if (overrides.claims?.iat !== undefined) claims.iat = iat;
  for (const name of overrides.drop ?? []) delete claims[name];
  const algorithm = overrides.algorithm ?? 'HS256';
  const sign = createSigner({ key: algorithm === 'none' ? undefined : (overrides.key ?? jwt.secret), algorithm, noTimestamp: keepIat });
  return sign(claims);
}

const profileWith = (token: string) => t.call('getProfile', { token });

describe('bearer tokens', () => {
  it('accepts the access token of a login', async () => {
    const res = await profileWith(login.access_token);
    expect(res.status).toBe(200);
    expect(res.body.result.username).toBe('agent');
  });

  it('accepts a token forged with the right secret and claims (the control case of the refusals below)', async () => {
    const res = await profileWith(forge());
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result).toMatchObject({ id: login.user.id, username: 'agent' });
  });

  it.each([
    ['a token with a tampered signature', () => `${login.access_token.slice(0, -4)}AAAA`],
    ['a token signed with another secret', () => forge({ key: 'another-secret-another-secret-0123456789' })],
    ['a token with alg none', () => forge({ algorithm: 'none' })],
    ['a token signed with HS512', () => forge({ algorithm: 'HS512' })],
    ['a token from another issuer', () => forge({ claims: { iss: 'someone-else' } })],
    ['a token for another audience', () => forge({ claims: { aud: 'another-api' } })],
    ['an expired token', () => forge({ claims: { exp: Math.floor(Date.now() / 1000) - 3600 } })],
    ['a refresh token used as an access token', () => login.refresh_token],
    ['a token whose typ is refresh', () => forge({ claims: { typ: 'refresh' } })],
    ['a malformed token', () => 'not-a-jwt'],
    ['a token without an issuer', () => forge({ drop: ['iss'] })],
    ['a token without an audience', () => forge({ drop: ['aud'] })],
    ['a token without iat', () => forge({ drop: ['iat'] })],
    ['a token without exp', () => forge({ drop: ['exp'] })],
    ['a token without sub', () => forge({ drop: ['sub'] })],
    ['a token without typ', () => forge({ drop: ['typ'] })],
    ['a token issued a day in the future', () => forge({ claims: { iat: Math.floor(Date.now() / 1000) + 86_400 } })],
  ])('refuses %s with 401', async (_name, token) => {
    const res = await profileWith(token());
    expect(res.status).toBe(401);
    expect(res.body.success).toBe(false);
    expect(Array.isArray(res.body.errors)).toBe(true);
    expect(res.headers['www-authenticate']).toBe('Bearer');
  });

  it('refuses a request without a token with 401', async () => {
    const res = await t.call('getProfile', {});
    expect(res.status).toBe(401);
    expect(res.body.errors).toEqual(['Missing bearer token']);
  });

  it('refuses a malformed Authorization header even around a token that verified before', async () => {
    // The token is known to the server (verified above): only the header's form is wrong.
    expect((await profileWith(login.access_token)).status).toBe(200);
    const form = 'Authorization header must be "Bearer <access token>"';
    for (const authorization of [
      `bearer ${login.access_token}`,
      `Bearer  ${login.access_token}`,
      `Bearer ${login.access_token} `,
      `Bearer ${login.access_token}.x`,
      `Basic ${login.access_token}`,
      login.access_token,
    ]) {
      const res = await t.app.inject({ method: 'GET', url: '/auth/profile', headers: { authorization } });
      const body = res.json();
      expect(res.statusCode, authorization.slice(0, 12)).toBe(401);
      expect(body.errors, authorization.slice(0, 12)).toEqual([form]);
    }
  });

  it('refuses an access token as a refresh token', async () => {
    const res = await t.call('refreshToken', { body: { refresh_token: login.access_token } });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ success: false, message: 'Invalid refresh token', result: null, errors: [expect.any(String)] });
  });

  it('refreshes an access token with the refresh token, without issuing a new refresh token', async () => {
    const res = await t.call('refreshToken', { body: { refresh_token: login.refresh_token } });
    expect(res.status).toBe(200);
    expect(res.body.result).not.toHaveProperty('refresh_token');
    expect((await profileWith(res.body.result.access_token)).status).toBe(200);
  });

  it('revokes the session at logout: its access and refresh tokens stop working at once', async () => {
    const own = (await t.call('login', { body: { username: 'agent2', password: DEMO_PASSWORD } })).body.result;
    expect((await profileWith(own.access_token)).status).toBe(200);
    expect((await t.call('logout', { token: own.access_token })).status).toBe(200);
    const after = await profileWith(own.access_token);
    expect(after.status).toBe(401);
    expect(after.body.errors).toEqual(['Token has been revoked']);
    expect((await t.call('refreshToken', { body: { refresh_token: own.refresh_token } })).status).toBe(401);
  });

  it('validates tokens: valid for a live session, not valid once revoked', async () => {
    const own = (await t.call('login', { body: { username: 'manager', password: DEMO_PASSWORD } })).body.result;
    const valid = await t.call('validateToken', { body: { token: own.access_token } });
    expect(valid.body.result).toMatchObject({ isValid: true, user: { username: 'manager', role_id: 4 } });
    await t.call('logout', { token: own.access_token });
    const revoked = await t.call('validateToken', { body: { token: own.access_token } });
    expect(revoked.body.result).toEqual({ isValid: false, user: null });
  });

  it('records a session per login', async () => {
    const before = await t.db
      .selectFrom('sessions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', login.user.id)
      .executeTakeFirstOrThrow();
    await t.call('login', { body: { username: 'agent', password: DEMO_PASSWORD } });
    const after = await t.db
      .selectFrom('sessions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', login.user.id)
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n) + 1);
  });
});

describe('roles', () => {
  it('refuses an agent on an administration operation with 403 FORBIDDEN naming the roles allowed', async () => {
    const res = await t.call('listUsers', { token: login.access_token });
    expect(res.status).toBe(403);
    expect(res.body.errors).toMatchObject({ code: 'FORBIDDEN', requiredRoles: ['team_manager', 'supervisor', 'admin', 'super_admin'] });
  });

  it('authenticates before validating: an unauthenticated request with a bad body gets 401, not 400', async () => {
    const res = await t.call('createTransport', { payload: { unknown: true } });
    expectUnauthenticated(res);
  });
});

describe('request limits and errors in the envelope', () => {
  it('refuses a JSON body over 10 MB with 413 PAYLOAD_TOO_LARGE', async () => {
    const res = await t.call('login', {
      payload: JSON.stringify({ username: 'agent', password: 'x'.repeat(10 * 1024 * 1024 + 1) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(413);
    expect(res.body.errors.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('refuses unknown body fields with 400 naming the field', async () => {
    const res = await t.call('login', { payload: { username: 'agent', password: DEMO_PASSWORD, admin: true } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toContain('body/admin is not an accepted field');
  });

  it('names the field and the rule of a validation failure', async () => {
    const res = await t.call('login', { payload: { username: 'agent' } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toContain('body/password is required');
  });

  it('answers malformed JSON with 400 in the envelope', async () => {
    const res = await t.call('login', { payload: '{"username":', headers: { 'content-type': 'application/json' } });
    expectInvalid(res, 'body is not valid JSON');
  });

  it('answers an unknown route with 404 ROUTE_NOT_FOUND and a wrong method with 405 METHOD_NOT_ALLOWED in the envelope', async () => {
    const unknown = await t.app.inject({ method: 'GET', url: '/nowhere' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({
      success: false,
      result: null,
      errors: { code: 'ROUTE_NOT_FOUND', method: 'GET', url: '/nowhere' },
    });
    const wrong = await t.app.inject({ method: 'DELETE', url: '/health' });
    expect(wrong.statusCode).toBe(405);
    expect(wrong.headers.allow).toBe('GET, HEAD, OPTIONS');
    expect(wrong.json()).toMatchObject({
      success: false,
      result: null,
      errors: { code: 'METHOD_NOT_ALLOWED', method: 'DELETE', url: '/health', allow: ['GET', 'HEAD', 'OPTIONS'] },
    });
  });

  it('answers an unsupported content type with 415 in the envelope', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: 'username=agent',
      headers: { 'content-type': 'text/csv' },
    });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ success: false, errors: { code: 'UNSUPPORTED_MEDIA_TYPE', contentType: 'text/csv' } });
  });

  it('tags every response with a request id', async () => {
    const res = await t.call('getHealth');
    expect(res.headers['x-request-id']).toBeTruthy();
  });
});

describe('rate limits', () => {
  it('answers 429 RATE_LIMITED with retry headers once the unauthenticated quota is used', async () => {
    const limited = await createTestApp({ rateLimit: { anonymous: 3, user: 5, admin: 8, windowMs: 3600_000 } });
    try {
      const anonymousCall = () => limited.call('verifyCertificate', { params: { code: 'ABCDEFGH2345' } });
      for (let i = 0; i < 3; i += 1) {
        const counted = await anonymousCall();
        expect(counted.status).toBe(404);
        expect(counted.headers['x-ratelimit-limit']).toBe('3');
      }
      const res = await anonymousCall();
      expect(res.status).toBe(429);
      expect(res.body.errors).toMatchObject({ code: 'RATE_LIMITED', limit: 3 });
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });

  it('never limits nor counts the liveness and readiness probes', async () => {
    const limited = await createTestApp({ rateLimit: { anonymous: 2, user: 2, admin: 2, windowMs: 3600_000 } });
    try {
      for (let i = 0; i < 5; i += 1) {
        const health = await limited.call('getHealth');
        const ready = await limited.call('getReadiness');
        expect([health.status, ready.status]).toEqual([200, 200]);
        expect(health.headers['x-ratelimit-limit']).toBeUndefined();
      }
      const counted = await limited.call('verifyCertificate', { params: { code: 'ABCDEFGH2345' } });
      expect(counted.headers['x-ratelimit-remaining']).toBe('1');
    } finally {
      await limited.close();
    }
  });

  it('counts authenticated users on their own quota, higher for administration roles', async () => {
    const limited = await createTestApp({ rateLimit: { anonymous: 2, user: 4, admin: 6, windowMs: 3600_000 } });
    try {
      const agent = (await limited.call('login', { body: { username: 'agent', password: DEMO_PASSWORD } })).body.result.access_token;
      const admin = (await limited.call('login', { body: { username: 'admin', password: DEMO_PASSWORD } })).body.result.access_token;
      const statuses = async (token: string, n: number) => {
        const out: number[] = [];
        for (let i = 0; i < n; i += 1) out.push((await limited.call('getProfile', { token })).status);
        return out;
      };
      expect(await statuses(agent, 5)).toEqual([200, 200, 200, 200, 429]);
      expect(await statuses(admin, 7)).toEqual([200, 200, 200, 200, 200, 200, 429]);
    } finally {
      await limited.close();
    }
  });
});
