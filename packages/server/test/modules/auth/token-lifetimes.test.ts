import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEMO_PASSWORD, useTestApp } from '../../support/app.js';
import { expectUnauthenticated } from '../../support/expect.js';

const t = useTestApp();
afterEach(() => {
  vi.useRealTimers();
});

/** The claims of a token as the client receives it (the payload is not encrypted). */
const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { iat: number; exp: number; typ: string; sid: number };

const login = async (username = 'agent') => {
  const res = await t.call('login', { body: { username, password: DEMO_PASSWORD } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.result;
};

/** Moves the clock `seconds` past `at` (a token's `exp`, in seconds since the epoch); only `Date` is faked. */
const clockAt = (at: number, seconds: number) => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime((at + seconds) * 1000);
};

describe('token lifetimes', () => {
  it('issues an access token that lives exactly the configured TTL, and says so in expires_in', async () => {
    const issued = await login();
    const { jwt } = t.app.config;
    const access = claimsOf(issued.access_token);
    expect(access.typ).toBe('access');
    expect(access.exp - access.iat).toBe(jwt.accessTtlSeconds);
    expect(issued.expires_in).toBe(jwt.accessTtlSeconds);
    expect(Math.abs(access.iat - Date.now() / 1000)).toBeLessThan(60);
  });

  it('issues a refresh token that lives exactly the configured refresh TTL', async () => {
    const issued = await login();
    const refresh = claimsOf(issued.refresh_token);
    expect(refresh.typ).toBe('refresh');
    expect(refresh.exp - refresh.iat).toBe(t.app.config.jwt.refreshTtlSeconds);
    expect(refresh.exp - refresh.iat).toBe(7 * 24 * 3600);
  });

  it('refreshes into an access token that lives exactly the configured TTL', async () => {
    const issued = await login();
    const res = await t.call('refreshToken', { body: { refresh_token: issued.refresh_token } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const access = claimsOf(res.body.result.access_token);
    expect(access.exp - access.iat).toBe(t.app.config.jwt.accessTtlSeconds);
    expect(res.body.result.expires_in).toBe(t.app.config.jwt.accessTtlSeconds);
  });

  it('accepts an access token until its exp (within the 5 s clock tolerance) and refuses it after, even one used before', async () => {
    const issued = await login('manager');
    const { exp } = claimsOf(issued.access_token);
    // Used once: the server now knows the token (and its session) from its caches.
    expect((await t.call('getProfile', { token: issued.access_token })).status).toBe(200);

    clockAt(exp, -10);
    const before = await t.call('getProfile', { token: issued.access_token });
    expect(before.status, JSON.stringify(before.body)).toBe(200);
    expect(before.body.result.username).toBe('manager');

    clockAt(exp, 6);
    expectUnauthenticated(await t.call('getProfile', { token: issued.access_token }), 'Token expired');
    const validated = await t.call('validateToken', { body: { token: issued.access_token } });
    expect(validated.status).toBe(200);
    expect(validated.body.result).toEqual({ isValid: false, user: null });
  });

  it('refuses an access token six days after its issue (it lives an hour), on every operation and in /auth/validate', async () => {
    const issued = await login('agent2');
    const { iat } = claimsOf(issued.access_token);
    clockAt(iat, 6 * 24 * 3600);
    expectUnauthenticated(await t.call('listTransports', { token: issued.access_token }), 'Token expired');
    const validated = await t.call('validateToken', { body: { token: issued.access_token } });
    expect(validated.body.result).toEqual({ isValid: false, user: null });
  });

  it('refuses a refresh token after its exp', async () => {
    const issued = await login();
    const { exp } = claimsOf(issued.refresh_token);
    clockAt(exp, 6);
    const res = await t.call('refreshToken', { body: { refresh_token: issued.refresh_token } });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ success: false, message: 'Invalid refresh token', errors: ['Token expired'] });
  });
});
