#!/usr/bin/env node
// Start-up benchmark: CPU time and wall time from `node dist/server.js` to the first 200 of
// `/ready`, on an existing (migrated and seeded) database. Runs the built server (`pnpm build`).
//   node bench/startup.mjs [runs]      embedded PGlite in a temporary directory
//   DATABASE_URL=postgres://... node bench/startup.mjs   on PostgreSQL (a throwaway database)
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const runs = Number(process.argv[2] ?? 5);
const ticks = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/** user + system CPU seconds of a running process, from /proc. */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticks;
}

let env = { ...process.env, NODE_ENV: 'development', LOG_LEVEL: 'warn', SEED_DEMO_DATA: 'true' };
let cleanup = async () => {};
if (process.env.DATABASE_URL) {
  const name = `transport_ops_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(process.env.DATABASE_URL);
  url.pathname = `/${name}`;
  env = { ...env, DATABASE_URL: url.toString() };
  cleanup = async () => {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  };
} else {
  const dir = mkdtempSync(join(tmpdir(), 'transport-ops-bench-'));
  env = { ...env, PGLITE_DATA_DIR: join(dir, 'pglite') };
  delete env.DATABASE_URL;
  cleanup = async () => rmSync(dir, { recursive: true, force: true });
}

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
