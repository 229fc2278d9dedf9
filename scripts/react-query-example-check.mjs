#!/usr/bin/env node
// The SDK's TanStack Query entry in a real React app (packages/sdk/examples/react-query), as a user
// drives it in headless Chromium: the app, bundled by esbuild and served on another local origin,
// logs in to the sandbox, lists transports with a query hook, creates one with a mutation and shows
// it in the refreshed list; the create carries the SDK's bearer token and an idempotency key.
// Fails unless every step passed.
// Usage: SANDBOX_URL=http://127.0.0.1:4000 node scripts/react-query-example-check.mjs
//        (without SANDBOX_URL it starts the built sandbox on a free port and stops it afterwards)
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSandbox } from './lib/sandbox.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sdkDir = join(root, 'packages/sdk');
// esbuild comes with the SDK's development dependencies, puppeteer-core with the server's.
const { build } = await import(createRequire(join(sdkDir, 'package.json')).resolve('esbuild'));
const { default: puppeteer } = await import(createRequire(join(root, 'packages/server/package.json')).resolve('puppeteer-core'));
const chromium = [process.env.CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p));
if (!chromium) {
  console.error('Chromium is not installed (Debian package `chromium`)');
  process.exit(1);
}

const started = performance.now();
const api = process.env.SANDBOX_URL ?? (await startSandbox(root));
const bundle = await build({
  entryPoints: [join(sdkDir, 'examples/react-query/app.tsx')],
  tsconfig: join(sdkDir, 'tsconfig.json'), // its paths resolve @transport-ops/sdk to the sources
  bundle: true,
  minify: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  define: { 'process.env.NODE_ENV': '"production"' },
  write: false,
});
const html = `<!doctype html><html><head><meta charset="utf-8"><title>Transports</title></head><body><div id="root"></div>
<script>window.API_BASE = ${JSON.stringify(api)};</script><script type="module" src="/app.js"></script></body></html>`;
const site = createServer((req, res) => {
  if (req.url === '/app.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle.outputFiles[0].contents);
  else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
});
await new Promise((resolve) => site.listen(0, '127.0.0.1', resolve));
const origin = `http://localhost:${site.address().port}`; // another origin than the API's 127.0.0.1

const profile = mkdtempSync(join(tmpdir(), 'react-query-check-'));
const browser = await puppeteer.launch({
  executablePath: chromium,
  headless: true,
  userDataDir: profile,
  args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  timeout: 60_000,
});
const steps = [];
let failure = null;
try {
  const page = await browser.newPage();
  page.setDefaultTimeout(60_000);
  const problems = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (r) => problems.push(`${r.method()} ${r.url()}: ${r.failure()?.errorText}`));
  const creates = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && new URL(r.url()).pathname === '/trade/transports') creates.push(r.headers());
  });

  await page.goto(`${origin}/`);
  await page.type('#login input[name=username]', 'agent');
  await page.type('#login input[name=password]', 'demo1234');
  await page.click('#login button');
  await page.waitForSelector('#transports li');
  const listed = await page.$$eval('#transports li', (items) => items.length);
  steps.push(`logged in as ${await page.$eval('#user', (e) => e.textContent.replace('Signed in as ', ''))}, listed ${listed}`);

  const loadingPoint = `Example dock ${Date.now().toString(36)}`;
  await page.waitForSelector('#new-transport select option');
  await page.type('#new-transport input[name=loadingPoint]', loadingPoint);
  await page.click('#new-transport button');
  await page.waitForSelector('#created');
  await page.waitForFunction(
    (text) => [...document.querySelectorAll('#transports li')].some((li) => li.textContent.includes(text)),
    {},
    loadingPoint,
  );
  const created = await page.$eval('#created', (e) => e.textContent);
  const after = await page.$$eval('#transports li', (items) => items.length);
  steps.push(`${created.toLowerCase()}, listed ${after} with it`);

  const [headers] = creates;
  if (creates.length !== 1) problems.push(`${creates.length} create requests (expected 1)`);
  if (!/^Bearer \S+$/.test(headers?.authorization ?? '')) problems.push('the create carried no bearer token');
  if (!/^[0-9a-f-]{36}$/.test(headers?.['idempotency-key'] ?? '')) problems.push('the create carried no idempotency key');
  else steps.push('the create carried the bearer token and an idempotency key');
  if (problems.length) failure = problems.join('; ');
} catch (error) {
  failure = `${error.name}: ${error.message}`;
} finally {
  await browser.close();
  site.close();
  rmSync(profile, { recursive: true, force: true });
}
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(
  `React app on ${origin} against ${api}: ${failure ? `FAIL after [${steps.join('; ')}]: ${failure}` : `PASS ${steps.join('; ')}`} (${seconds} s)`,
);
process.exit(failure ? 1 : 0);
