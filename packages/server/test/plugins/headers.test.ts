import { describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, useTestApp } from '../support/app.js';

const t = useTestApp();

describe('security headers', () => {
  it('come with every answer, errors included', async () => {
    for (const res of [await t.call('getProfile', {}), await t.call('login', { body: { username: 'agent', password: DEMO_PASSWORD } })]) {
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['cross-origin-resource-policy']).toBe('same-origin');
      // Headers that act only on an HTML document stay on the documentation page.
      expect(res.headers['x-xss-protection']).toBeUndefined();
      expect(res.headers['cross-origin-opener-policy']).toBeUndefined();
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
      expect(res.headers['content-security-policy']).toContain("default-src 'none'");
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    }
  });

  it('come with the answer to a malformed URL too (no hook runs for it), request id included', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/trade/transports/%zz' });
    expect(res.statusCode).toBe(400);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('mark token answers no-store, and only them', async () => {
    const health = await t.call('getHealth');
    expect(health.headers['cache-control']).toBeUndefined();
    expect(health.headers.pragma).toBeUndefined();
    const login = await t.call('login', { body: { username: 'agent', password: DEMO_PASSWORD } });
    expect(login.status).toBe(200);
    expect(login.headers['cache-control']).toBe('no-store');
    const refresh = await t.call('refreshToken', { body: { refresh_token: login.body.result.refresh_token } });
    expect(refresh.status).toBe(200);
    expect(refresh.headers['cache-control']).toBe('no-store');
    expect(refresh.headers.pragma).toBe('no-cache');
  });

  it('let the documentation page run its inline scripts and styles, and nothing from elsewhere', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs' });
    const policy = String(res.headers['content-security-policy']);
    expect(policy).toContain("script-src 'self' 'unsafe-inline' blob:");
    expect(policy).toContain("style-src 'self' 'unsafe-inline'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['cross-origin-opener-policy']).toBe('same-origin');
    expect(res.headers['x-dns-prefetch-control']).toBe('off');
    expect(res.headers['x-permitted-cross-domain-policies']).toBe('none');
    const api = await t.call('getHealth');
    expect(api.headers['content-security-policy']).not.toContain('script-src');
  });
});
