import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, useTestApp } from '../support/app.js';

const t = useTestApp();

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

describe('the contract and the docs in production', () => {
  const dist = dirname(createRequire(import.meta.url).resolve('@transport-ops/contract/openapi.json'));
  let production: TestApp;
  beforeAll(async () => {
    // The pages come from `pnpm docs` (part of `pnpm build`); built here when this checkout has not run it.
    if (!existsSync(join(dist, 'docs.html')) || !existsSync(join(dist, 'docs.production.html'))) {
      execFileSync(process.execPath, [join(dist, '../../../scripts/docs.mjs')], { stdio: 'ignore' });
    }
    production = await createTestApp({ nodeEnv: 'production' });
  }, 180_000);
  afterAll(async () => production?.close());

  const fetch = async (app: TestApp, url: string) => (await app.app.inject({ method: 'GET', url })).body;

  it('never shows the demo password in /docs, /openapi.json or /openapi.yaml, which a development server shows', async () => {
    for (const url of ['/docs', '/openapi.json', '/openapi.yaml']) {
      expect(await fetch(t, url), `development ${url}`).toContain('demo1234');
      expect(await fetch(production, url), `production ${url}`).not.toContain('demo1234');
    }
  });

  it('keeps every operation and the SDK samples, logging in with the reader own credentials', async () => {
    const dev = JSON.parse(await fetch(t, '/openapi.json'));
    const prod = JSON.parse(await fetch(production, '/openapi.json'));
    expect(Object.keys(prod.paths)).toEqual(Object.keys(dev.paths));
    expect(prod.info.description).not.toContain('## Demo accounts');
    expect(prod.info.description).toContain('## Accounts');
    const page = await fetch(production, '/docs');
    expect(page).toContain('api.login(process.env.API_USERNAME, process.env.API_PASSWORD)');
    expect(page).toContain('Transport Operations API');
  });
});
