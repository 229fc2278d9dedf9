/**
 * `pnpm bench:write-safety`: what idempotency keys and conditional GETs cost the server, in CPU
 * per request, in one run. Starts the built server (`dist/server.js`) on a fresh database with
 * the demo data (a database of its own on the local PostgreSQL, BENCH_WRITE_DATABASE_URL, or the
 * embedded PGlite with BENCH_PGLITE=1), then loads, in alternation for BENCH_ROUNDS rounds
 * (default 6) of BENCH_SECONDS each (default 3) with BENCH_CONNECTIONS clients (default 4: /proc
 * counts CPU in 10 ms ticks, so a run needs many requests), the order rotated every round: `POST
 * /trade/transports` without and with an `Idempotency-Key` (a new UUID per request: each one is
 * claimed, run and stored), and `GET /trade/transports/{id}` plain (200) and conditional (304).
 * CPU per request is the server process's CPU time (Linux /proc) over the requests of a run;
 * the table gives the median over the rounds and the ratio of each pair. Writes the table to
 * bench/results/write-safety.md.
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import pg from 'pg';
import { autocannon, cpuMs, freePort, machine, start, stopAll, waitFor } from './harness.js';
import { type Scenario, writeScenarios } from './scenarios.js';
import { serverUrl } from './target.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const rounds = Number(process.env.BENCH_ROUNDS ?? 6);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 4);
const here = new URL('.', import.meta.url).pathname;

async function database(): Promise<Record<string, string>> {
  if (process.env.BENCH_PGLITE === '1') return { PGLITE_DATA_DIR: 'memory://' };
  const url = process.env.BENCH_WRITE_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/transport_ops_write_bench';
  const admin = new pg.Client({ connectionString: serverUrl(url) });
  await admin.connect();
  const name = new URL(url).pathname.slice(1);
  await admin.query(`drop database if exists "${name}" with (force)`);
  await admin.query(`create database "${name}"`);
  await admin.end();
  return { DATABASE_URL: url };
}

const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const server = start(['dist/server.js'], {
  ...(await database()),
  PORT: String(port),
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  NODE_ENV: 'development',
  SEED_DEMO_DATA: 'true',
  RATE_LIMIT_ANONYMOUS: '1000000000',
  RATE_LIMIT_USER: '1000000000',
  RATE_LIMIT_ADMIN: '1000000000',
  IDEMPOTENCY_SWEEP_INTERVAL_MS: '0',
});
try {
  await waitFor(base);
  const token = async (username: string) => {
    const res = await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password: 'demo1234' }),
    });
    return ((await res.json()) as { result: { access_token: string } }).result.access_token;
  };
  const tokens = new Map([
    ['agent', await token('agent')],
    ['supervisor', await token('supervisor')],
  ]);
  const [create, keyed] = writeScenarios();
  const created = await fetch(`${base}/trade/transports`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.get('agent')}` },
    body: JSON.stringify(create!.body),
  });
  const id = ((await created.json()) as { result: { id: number } }).result.id;
  const detail: Scenario = {
    name: 'transport detail (200)',
    role: 'supervisor',
    method: 'GET',
    path: `/trade/transports/${id}`,
    list: false,
  };
  const conditional: Scenario = Object.assign({}, detail, {
    name: 'transport detail, If-None-Match (304)',
    headers: { 'if-none-match': '*' },
  });
  const list = [create!, keyed!, detail, conditional];
  const samples = new Map<string, number[]>(list.map((s) => [s.name, []]));
  const statuses = new Map<string, Set<string>>(list.map((s) => [s.name, new Set()]));
  const totals = new Map<string, number>(list.map((s) => [s.name, 0]));

  const load = async (s: Scenario, duration: number) => {
    const before = cpuMs(server.pid)!;
    const run = await autocannon(`${base}${s.path}`, s, duration, { tokens, connections });
    const cpu = cpuMs(server.pid)! - before;
    return { run, perRequest: (cpu * 1000) / Math.max(1, run.requests.total) };
  };
  // Warm-up: every scenario once, so that the first measured does not pay for compiling shared code.
  for (const s of list) await load(s, 2);
  for (let round = 0; round < rounds; round++) {
    const order = list.map((_, i) => list[(i + round) % list.length]!);
    for (const s of order) {
      const { run, perRequest } = await load(s, seconds);
      samples.get(s.name)!.push(perRequest);
      totals.set(s.name, (totals.get(s.name) ?? 0) + run.requests.total);
      statuses.get(s.name)!.add(run.non2xx > 0 ? `${run.non2xx} non-2xx` : '2xx');
    }
  }
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  };
  const row = (s: Scenario) => {
    const values = samples.get(s.name)!;
    return `| ${s.name} | ${median(values).toFixed(0)} | ${Math.min(...values).toFixed(0)}-${Math.max(...values).toFixed(0)} | ${totals.get(s.name)} |`;
  };
  const ratio = (a: Scenario, b: Scenario) => (median(samples.get(b.name)!) / median(samples.get(a.name)!)).toFixed(2);
  const table = [
    `Server CPU per request (µs), median of ${rounds} rounds of ${seconds} s, ${connections} connections; ${machine()};`,
    `database: ${process.env.BENCH_PGLITE === '1' ? 'PGlite (memory)' : 'PostgreSQL'}; load average at the end ${loadavg()[0]!.toFixed(1)}.`,
    '',
    '| scenario | CPU µs/request (median) | rounds min-max | requests |',
    '|---|---|---|---|',
    ...list.map(row),
    '',
    `With an idempotency key / without: ${ratio(create!, keyed!)}. Conditional GET (304) / plain GET (200): ${ratio(detail, conditional)}.`,
    `304 answers (non-2xx) per run: ${[...statuses.get(conditional.name)!].join(', ')}.`,
  ].join('\n');
  console.log(table);
  writeFileSync(`${here}results/write-safety.md`, `${table}\n`);
} finally {
  stopAll();
}
