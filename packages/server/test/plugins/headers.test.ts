import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, DEMO_PASSWORD, type TestApp } from '../support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe('security headers', () => {
  it('come with every answer, errors included', async () => {
    for (const res of [await t.call('getProfile', {}), await t.call('login', { body: { username: 'agent', password: DEMO_PASSWORD } })]) {
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
      expect(res.headers['content-security-policy']).toContain("default-src 'none'");
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    }
  });

  it('mark token answers no-store', async () => {
    const login = await t.call('login', { body: { username: 'agent', password: DEMO_PASSWORD } });
    expect(login.status).toBe(200);
    expect(login.headers['cache-control']).toBe('no-store');
    const refresh = await t.call('refreshToken', { body: { refresh_token: login.body.result.refresh_token } });
    expect(refresh.status).toBe(200);
    expect(refresh.headers['cache-control']).toBe('no-store');
  });

  it('let the documentation page run its inline scripts and styles, and nothing from elsewhere', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs' });
    const policy = String(res.headers['content-security-policy']);
    expect(policy).toContain("script-src 'self' 'unsafe-inline' blob:");
    expect(policy).toContain("style-src 'self' 'unsafe-inline'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});
