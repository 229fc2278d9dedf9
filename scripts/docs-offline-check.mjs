#!/usr/bin/env node
// Opens the built docs page in headless Chromium with every request outside this machine sent to
// a recording proxy that refuses it, takes a screenshot, and fails when the page asked for anything
// external (a CDN, telemetry, fonts).
// Usage: node scripts/docs-offline-check.mjs [screenshot.png] [route, e.g. /section/errors] [height]
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const page = readFileSync(join(root, 'packages/contract/dist/docs.html'));
const screenshot = process.argv[2] ?? join(root, 'packages/contract/dist/docs.png');
const listen = (server) => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));

const site = createServer((req, res) => {
  if (!req.url.includes('.') || req.url === '/') return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  res.writeHead(404).end();
});
const external = [];
const proxy = createServer((req, res) => {
  external.push(`${req.method} ${req.url}`);
  res.writeHead(403).end();
});
proxy.on('connect', (req, socket) => {
  external.push(`CONNECT ${req.url}`);
  socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
});
const sitePort = await listen(site);
const proxyPort = await listen(proxy);
const browser = process.env.CHROMIUM ?? 'chromium';
const profile = mkdtempSync(join(tmpdir(), 'docs-check-'));
const args = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--hide-scrollbars',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-domain-reliability',
  '--disable-sync',
  `--proxy-server=http://127.0.0.1:${proxyPort}`,
  `--window-size=1440,${process.argv[4] ?? 1000}`,
  '--virtual-time-budget=15000',
  `--screenshot=${screenshot}`,
  `--user-data-dir=${profile}`,
  `http://127.0.0.1:${sitePort}${process.argv[3] ?? '/'}`,
];
await new Promise((resolve, reject) =>
  execFile(browser, args, { timeout: 120_000, cwd: profile }, (error, _out, stderr) =>
    error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stderr),
  ),
).then((stderr) => {
  if (!/bytes written to file/.test(stderr)) throw new Error(`no screenshot taken:\n${stderr}`);
});
rmSync(profile, { recursive: true, force: true });
site.close();
proxy.close();
// Chromium's own housekeeping (update checks, network time, account sync) is not the page's doing.
const BROWSER_HOUSEKEEPING = /(^|[/.\s])(google\.com|googleapis\.com|gvt1\.com|gstatic\.com)(:\d+)?(\/|$)/;
const foreign = external.filter(
  (r) =>
    !BROWSER_HOUSEKEEPING.test(
      r
        .split(' ')[1]
        .replace(/^https?:\/\//, '')
        .split('/')[0]
        .replace(/^/, '/'),
    ),
);
console.log(`screenshot: ${screenshot}`);
if (foreign.length) {
  console.error(`the docs page made ${foreign.length} external request(s):\n${[...new Set(foreign)].join('\n')}`);
  process.exit(1);
}
console.log('the docs page rendered with no external request');
