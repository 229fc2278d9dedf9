#!/usr/bin/env node
// Start-up benchmark: CPU time and wall time from `node dist/server.js` to the first 200 of
// `/ready`, on an existing (migrated and seeded) database. Runs the built server (`pnpm build`).
//   node bench/startup.mjs [runs]      embedded PGlite in a temporary directory
//   DATABASE_URL=postgres://... node bench/startup.mjs   on PostgreSQL (a throwaway database)
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuSeconds, freePort, throwawayDatabase } from './process.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const runs = Number(process.argv[2] ?? 5);
const { env, cleanup } = await throwawayDatabase(
  { ...process.env, NODE_ENV: 'development', LOG_LEVEL: 'warn', SEED_DEMO_DATA: 'true' },
  'transport_ops_bench',
);

async function start() {
  const port = await freePort();
  const began = performance.now();
  const child = spawn(process.execPath, [join(root, 'dist/server.js')], {
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/ready`);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const result = { wallMs: performance.now() - began, cpuS: cpuSeconds(child.pid) };
  child.kill('SIGTERM');
  await exited;
  return result;
}

try {
  const first = await start(); // creates, migrates and seeds the database
  console.log(`first start (new database, migrations, demo data): ${first.cpuS.toFixed(2)} s CPU, ${Math.round(first.wallMs)} ms wall`);
  const samples = [];
  for (let i = 0; i < runs; i++) samples.push(await start());
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const cpu = median(samples.map((s) => s.cpuS));
  const wall = median(samples.map((s) => s.wallMs));
  console.log(
    `start on an existing ${env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'} database, median of ${runs}: ${cpu.toFixed(2)} s CPU, ${Math.round(wall)} ms wall (to the first 200 of /ready)`,
  );
} finally {
  await cleanup();
}
