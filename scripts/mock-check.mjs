#!/usr/bin/env node
// `pnpm mock:check`: the mock keeps answering while its contract changes under it. Starts
// `pnpm mock` on a free port and asks it GET /health every 50 ms while (1) `pnpm gen` runs,
// (2) the bundle is replaced by a changed one (the mock must switch to it), (3) the bundle is
// overwritten by a half-written file (the mock must keep the last good one). Then restores the
// bundle. Fails on any refused connection, 502, or a switch that does not happen.
import { spawn } from 'node:child_process';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bundle = join(root, 'packages/contract/dist/openapi.json');
const port = await new Promise((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const { port } = s.address();
    s.close(() => resolve(port));
  });
});
const base = `http://127.0.0.1:${port}`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const run = (args) =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit' });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${args.join(' ')} exited ${code}`))));
  });

const original = readFileSync(bundle, 'utf8');
const mock = spawn(process.execPath, [join(root, 'scripts/mock.mjs'), '--port', String(port)], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
});
let said = '';
mock.stdout.on('data', (chunk) => {
  said += chunk;
  process.stdout.write(chunk);
});
const failures = [];
let answered = 0;
let polling = false;
async function poll() {
  while (polling) {
    try {
      const res = await fetch(`${base}/health`);
      await res.arrayBuffer();
      if (res.status === 502) failures.push(`502 at ${new Date().toISOString()}`);
      else answered++;
    } catch (error) {
      failures.push(`${error.cause?.code ?? error.message} at ${new Date().toISOString()}`);
    }
    await sleep(50);
  }
}
async function until(check, what, ms = 600_000) {
  for (const started = Date.now(); Date.now() - started < ms; await sleep(200)) if (await check().catch(() => false)) return;
  throw new Error(`timed out waiting for ${what}`);
}
const replace = (text) => {
  writeFileSync(`${bundle}.check`, text);
  renameSync(`${bundle}.check`, bundle);
};

let exitCode = 0;
try {
  await until(async () => (await fetch(`${base}/health`)).ok, 'the mock to start');
  polling = true;
  const polled = poll();
  console.log('[mock:check] 1/3 pnpm gen while the mock serves');
  await run([join(root, 'scripts/gen.mjs')]);
  console.log('[mock:check] 2/3 a changed bundle: the mock switches to it');
  const marker = `mock-check-${Date.now()}`;
  const switches = said.split('serving the changed contract').length;
  replace(original.replace('"info":{', `"info":{"x-check":"${marker}",`));
  await until(async () => said.split('serving the changed contract').length > switches, 'the mock to switch to the changed bundle');
  await sleep(6_000);
  console.log('[mock:check] 3/3 a half-written bundle: the mock keeps the last good contract');
  writeFileSync(bundle, original.slice(0, original.length / 3));
  await sleep(3_000);
  replace(original);
  await sleep(3_000);
  polling = false;
  await polled;
  if (answered < 50) failures.push(`only ${answered} answers`);
} catch (error) {
  failures.push(error.message);
} finally {
  polling = false;
  replace(original);
  mock.kill('SIGTERM');
}
if (failures.length) {
  console.error(`[mock:check] failed: ${failures.length} problem(s): ${failures.slice(0, 10).join('; ')}`);
  exitCode = 1;
} else console.log(`[mock:check] passed: ${answered} answers, none refused`);
process.exit(exitCode);
