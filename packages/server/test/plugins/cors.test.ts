import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { expectError } from '../support/expect.js';

const APP_ORIGIN = 'https://app.transport-ops.example';
const t = useTestApp({ corsOrigins: [APP_ORIGIN] });

const preflight = (url: string, origin: string, method = 'POST') =>
  t.app.inject({
    method: 'OPTIONS',
    url,
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization,content-type' },
  });

describe('CORS', () => {
  it('answers the preflight of login for an origin of CORS_ORIGINS, before any authentication or quota', async () => {
    const res = await preflight('/auth/login', APP_ORIGIN);
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
    expect(String(res.headers['access-control-allow-methods'])).toContain('POST');
    expect(String(res.headers['access-control-allow-headers'])).toContain('authorization');
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('answers preflights for operations with path parameters too', async () => {
    const res = await preflight('/trade/transports/42/documents', APP_ORIGIN);
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
  });

  it('allows local development origins outside production', async () => {
    const res = await preflight('/trade/transports', 'http://localhost:5173', 'GET');
    expect(res.headers['access-control-allow-origin']).toBe('http://localhost:5173');
  });

  it('refuses the preflight of an origin that is not listed: 403 CORS_ORIGIN_REFUSED naming the origin and the setting', async () => {
    const res = await preflight('/trade/transports', 'https://evil.example', 'GET');
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({
      success: false,
      message: 'Origin https://evil.example is not allowed to call this API: add it to CORS_ORIGINS',
      result: null,
      errors: { code: 'CORS_ORIGIN_REFUSED', origin: 'https://evil.example', setting: 'CORS_ORIGINS' },
      except: null,
    });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('refuses a request from an origin that is not listed before it runs: nothing is written', async () => {
    const before = await t.db
      .selectFrom('transports')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    // Any operation may answer it (the contract's introduction): sent raw, not checked against this operation's answers.
    const raw = await t.app.inject({
      method: 'POST',
      url: '/trade/transports',
      headers: { origin: 'https://evil.example', authorization: `Bearer ${await t.token('agent')}` },
      payload: { loadingNumber: 'CORS-REFUSED-1' },
    });
    expectError({ status: raw.statusCode, body: raw.json() }, 403, 'CORS_ORIGIN_REFUSED', {
      origin: 'https://evil.example',
      setting: 'CORS_ORIGINS',
    });
    const after = await t.db
      .selectFrom('transports')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it("never refuses the server's own origin (browsers send Origin on same-origin POSTs)", async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/auth/login',
      headers: { origin: 'https://api.transport-ops.example', host: 'api.transport-ops.example' },
      payload: { username: 'agent', password: 'demo1234' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().result.access_token).toEqual(expect.any(String));
  });

  it("adds no CORS headers to a request without an Origin (no browser's cross-origin call), only Vary: Origin", async () => {
    const res = await t.app.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    expect(res.headers.vary).toBe('Origin');
  });

  it('lets a browser read the request id and the rate-limit headers of a real response', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/auth/login',
      headers: { origin: APP_ORIGIN },
      payload: { username: 'agent', password: 'wrong-password' },
    });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ success: false });
    expect(res.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
    const exposed = String(res.headers['access-control-expose-headers']);
    for (const header of ['x-request-id', 'x-ratelimit-remaining', 'retry-after']) expect(exposed).toContain(header);
  });
});
