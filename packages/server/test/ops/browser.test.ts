import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiServer, freePort, startApi } from './processes.js';

type Outcome = { ok: boolean; listed: number; createdId: number; requestId: string | null; rateLimitRemaining: string | null };

const here = dirname(fileURLToPath(import.meta.url));
const chromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
if (!chromium) console.warn('Browser test skipped: Chromium is not installed (Debian package `chromium`)');

describe.skipIf(!chromium)('a browser app on another origin, through the SDK (headless Chromium)', () => {
  let api: ApiServer;
  let site: Server;
  let siteOrigin: string;

  beforeAll(async () => {
    // The SDK bundled for the page with esbuild (a development dependency of the SDK).
    type Build = (options: object) => Promise<{ outputFiles: { text: string }[] }>;
    const esbuild = (await import(createRequire(join(here, '../../../sdk/package.json')).resolve('esbuild'))) as { build: Build };
    const bundle = await esbuild.build({
      entryPoints: [join(here, 'browser/page.ts')],
      bundle: true,
      format: 'iife',
      platform: 'browser',
      target: 'es2022',
      write: false,
    });
    const script = bundle.outputFiles[0]!.text;
    api = await startApi({});
    const port = await freePort();
    siteOrigin = `http://localhost:${port}`; // another origin than the API's http://127.0.0.1:<port>
    const html = `<!doctype html><html><head><meta charset="utf-8"><title>Transport Ops</title></head><body>
<script>window.API_BASE = ${JSON.stringify(api.base)};</script><script src="/app.js"></script></body></html>`;
    site = createServer((req, res) => {
      if (req.url === '/app.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
      else res.writeHead(200, { 'content-type': 'text/html' }).end(html);
    });
    await new Promise<void>((resolve) => site.listen(port, '127.0.0.1', resolve));
  }, 300_000);

  afterAll(async () => {
    await new Promise((resolve) => site?.close(resolve));
    await api?.stop();
  });

  it('logs in, lists, creates and uploads, reading the exposed headers', async () => {
    const { default: puppeteer } = await import('puppeteer-core');
    const browser = await puppeteer.launch({
      executablePath: chromium,
      headless: true,
      args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
      timeout: 60_000,
    });
    try {
      const page = await browser.newPage();
      const failures: string[] = [];
      page.on('requestfailed', (req) => failures.push(`${req.method()} ${req.url()}: ${req.failure()?.errorText}`));
      await page.goto(`${siteOrigin}/`, { timeout: 60_000 });
      await page.waitForFunction(`window.outcome !== undefined`, { timeout: 120_000 });
      const outcome = (await page.evaluate(`window.outcome`)) as Outcome | undefined;
      expect(failures).toEqual([]);
      expect(outcome).toMatchObject({ ok: true, origin: siteOrigin, user: 'agent', uploaded: 1 });
      expect(outcome!.listed).toBeGreaterThan(0);
      expect(outcome!.createdId).toBeGreaterThan(0);
      expect(outcome!.requestId).toMatch(/^[0-9a-f-]{36}$/);
      expect(Number(outcome!.rateLimitRemaining)).toBeGreaterThan(0);
    } finally {
      await browser.close();
    }
  });
});
