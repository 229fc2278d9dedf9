import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

describe('the contract and the docs', () => {
  it('serves /openapi.json compressed in the encoding the client prefers, with an ETag', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json', headers: { 'accept-encoding': 'br, gzip' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers.etag).toMatch(/^"[\w-]+"$/);
    const doc = JSON.parse(brotliDecompressSync(res.rawPayload).toString('utf8'));
    expect(doc).toMatchObject({ openapi: '3.1.0', info: { title: 'Transport Operations API' } });
    expect(doc.paths['/ready']).toBeDefined();
  });

  it('answers 304 when the ETag still matches', async () => {
    const first = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    const again = await t.app.inject({ method: 'GET', url: '/openapi.json', headers: { 'if-none-match': String(first.headers.etag) } });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
  });

  it('serves /openapi.yaml, gzip for a client without brotli, identity otherwise', async () => {
    const gz = await t.app.inject({ method: 'GET', url: '/openapi.yaml', headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString('utf8')).toMatch(/^openapi: 3\.1\.0/);
    const plain = await t.app.inject({ method: 'GET', url: '/openapi.yaml' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['content-type']).toContain('application/yaml');
    expect(plain.body).toMatch(/^openapi: 3\.1\.0/);
  });

  it('compresses large JSON answers of the operations', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/trade/transports',
      query: { limit: '100' },
      headers: { authorization: `Bearer ${await t.token('admin')}`, 'accept-encoding': 'gzip' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(res.rawPayload).toString('utf8'))).toMatchObject({ success: true });
  });
});
