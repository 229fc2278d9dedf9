#!/usr/bin/env node
// Sandbox benchmark: back-to-back `POST /sandbox/reset` (ten in a row, nothing between them; then
// ten each after a login and a transport created) and the sandbox's memory (resident set after
// start, after the resets, and its peak). Runs the built sandbox (`pnpm build`), on a free port.
//   node bench/sandbox-reset.mjs [--max-median-ms 150]   exits 1 when a median exceeds the bound
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort } from './process.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { 'max-median-ms': { type: 'string', default: '150' } } });
const bound = Number(values['max-median-ms']);

const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const began = performance.now();
const child = spawn(process.execPath, [join(root, 'dist/sandbox.js'), '--port', String(port)], {
  env: { ...process.env, LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'ignore', 'inherit'],
});
/** Resident and peak resident memory of the sandbox process, in MB (Linux /proc). */
const memory = () => {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const mb = (key) => Math.round(Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) / 1024);
  return { rssMb: mb('VmRSS'), peakMb: mb('VmHWM') };
};
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const round = (x) => Math.round(x * 10) / 10;

async function call(method, path, body, token) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.result;
}

async function resets(count, before) {
  const wall = [];
  const server = [];
  for (let i = 0; i < count; i++) {
    if (before) await before();
    const started = performance.now();
    const result = await call('POST', '/sandbox/reset');
    wall.push(performance.now() - started);
    server.push(result.durationMs);
  }
  return { wall, server };
}

let failed = false;
try {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the sandbox exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${base}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const ready = { ms: Math.round(performance.now() - began), ...memory() };
  console.log(`sandbox ready in ${ready.ms} ms; resident ${ready.rssMb} MB (peak ${ready.peakMb} MB)`);

  const bare = await resets(10);
  const vehicleTypeId = async (token) => (await call('GET', '/trade/transports/vehicle-types', undefined, token))[0].id;
  const afterWrites = await resets(10, async () => {
    const { access_token: token } = await call('POST', '/auth/login', { username: 'agent', password: 'demo1234' });
    await call(
      'POST',
      '/trade/transports',
      { chargerFirstName: 'Bench', chargerLastName: 'Mark', vehicleTypeId: await vehicleTypeId(token), loadingPoint: 'Lyon' },
      token,
    );
  });
  const after = memory();
  for (const [name, run] of [
    ['ten back-to-back resets', bare],
    ['ten resets, each after a login and a new transport', afterWrites],
  ]) {
    const m = median(run.wall);
    console.log(
      `${name}: median ${round(m)} ms (client), ${round(median(run.server))} ms (server); each: ${run.wall.map(round).join(', ')}`,
    );
    if (m > bound) {
      console.error(`  median above ${bound} ms`);
      failed = true;
    }
  }
  console.log(`after the resets: resident ${after.rssMb} MB (peak ${after.peakMb} MB)`);
} catch (error) {
  console.error(error.message);
  failed = true;
} finally {
  child.kill('SIGTERM');
}
process.exit(failed ? 1 : 0);
