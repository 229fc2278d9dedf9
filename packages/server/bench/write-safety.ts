/**
 * `pnpm bench:write-safety`: what idempotency keys and conditional requests cost, in one run.
 * Starts the built server (`dist/server.js`) on a fresh database with the demo data, then loads,
 * in alternation for BENCH_ROUNDS rounds (default 6) of BENCH_SECONDS each (default 3), the order
 * rotated every round, at each client count of BENCH_CONNECTIONS (default `1,8`):
 *
 * - `POST /trade/transports` without and with an `Idempotency-Key` (a new UUID per request: each
 *   one is claimed, run and stored with the transport);
 * - `PATCH /trade/transports/{id}` without and with `If-Match` (each client its own transport, and
 *   as `If-Match` the `ETag` of its previous answer: every write is checked and applied);
 * - `GET /trade/transports/{id}` plain (200) and conditional (304).
 *
 * Time per request is the mean round trip of the closed loop (run length x clients / requests);
 * CPU per request the server process's CPU time (Linux /proc) over the requests of a run. The
 * table gives medians over the rounds and the ratio of each pair; it is written to
 * bench/results/write-safety.md.
 *
 * Where it runs (so that it can run beside other work): `--port N` / BENCH_PORT (default: a free
 * port), `--database URL` / BENCH_WRITE_DATABASE_URL (a database of its own on a PostgreSQL server,
 * dropped and created again; default `transport_ops_write_bench` on the local one), or
 * `--pglite` / BENCH_PGLITE=1 (the embedded database, in memory).
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { autocannon, cpuMs, freePort, machine, start, stopAll, waitFor } from './harness.js';
import { type Scenario, writeScenarios } from './scenarios.js';
import { serverUrl } from './target.js';

const argv = process.argv.slice(2);
const { values: flags } = parseArgs({
  // `pnpm bench:write-safety -- --port 4100` passes the `--` on.
  args: argv[0] === '--' ? argv.slice(1) : argv,
  options: { port: { type: 'string' }, database: { type: 'string' }, pglite: { type: 'boolean' } },
});
const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const rounds = Number(process.env.BENCH_ROUNDS ?? 6);
const clientCounts = (process.env.BENCH_CONNECTIONS ?? '1,8').split(',').map(Number);
const pglite = flags.pglite === true || process.env.BENCH_PGLITE === '1';
const here = new URL('.', import.meta.url).pathname;

async function database(): Promise<Record<string, string>> {
  if (pglite) return { PGLITE_DATA_DIR: 'memory://' };
  const url = flags.database ?? process.env.BENCH_WRITE_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/transport_ops_write_bench';
  const admin = new pg.Client({ connectionString: serverUrl(url) });
  await admin.connect();
  const name = new URL(url).pathname.slice(1);
  await admin.query(`drop database if exists "${name}" with (force)`);
  await admin.query(`create database "${name}"`);
  await admin.end();
  return { DATABASE_URL: url };
}

const port = Number(flags.port ?? process.env.BENCH_PORT ?? (await freePort()));
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

/** A scenario and how its runs are made (a path per client, the ETag chained). */
interface Load {
  s: Scenario;
  paths?: string[];
  chainEtag?: boolean;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

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
  const newTransport = async () => {
    const created = await fetch(`${base}/trade/transports`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.get('agent')}` },
      body: JSON.stringify(create!.body),
    });
    return ((await created.json()) as { result: { id: number } }).result.id;
  };
  const id = await newTransport();
  // One transport per client of the PATCH runs: a client's chained ETag is never another's.
  const patchPaths: string[] = [];
  for (let i = 0; i < Math.max(...clientCounts); i++) patchPaths.push(`/trade/transports/${await newTransport()}`);
  const patch: Scenario = {
    name: 'PATCH transport',
    role: 'agent',
    method: 'PATCH',
    path: patchPaths[0]!,
    body: { productQuantity: 25 },
    list: false,
    noReplay: true,
  };
  const detail: Scenario = { name: 'GET transport (200)', role: 'supervisor', method: 'GET', path: `/trade/transports/${id}`, list: false };
  const loads: Load[] = [
    { s: create! },
    { s: keyed! },
    { s: patch, paths: patchPaths },
    { s: Object.assign({}, patch, { name: 'PATCH transport, If-Match (its last ETag)' }), paths: patchPaths, chainEtag: true },
    { s: detail },
    { s: Object.assign({}, detail, { name: 'GET transport, If-None-Match (304)', headers: { 'if-none-match': '*' } }) },
  ];

  const sections: string[] = [];
  for (const connections of clientCounts) {
    const time = new Map<string, number[]>(loads.map((l) => [l.s.name, []]));
    const cpu = new Map<string, number[]>(loads.map((l) => [l.s.name, []]));
    const totals = new Map<string, number>(loads.map((l) => [l.s.name, 0]));
    const failures = new Map<string, number>(loads.map((l) => [l.s.name, 0]));
    const run = async (l: Load, duration: number) => {
      const before = cpuMs(server.pid)!;
      const out = await autocannon(`${base}${l.s.path}`, l.s, duration, { tokens, connections, paths: l.paths, chainEtag: l.chainEtag });
      const used = cpuMs(server.pid)! - before;
      const n = Math.max(1, out.requests.total);
      return { out, cpuUs: (used * 1000) / n, timeMs: (out.duration * 1000 * connections) / n };
    };
    // Warm-up: every scenario once, so that the first measured does not pay for compiling shared code.
    for (const l of loads) await run(l, 2);
    for (let round = 0; round < rounds; round++) {
      const order = loads.map((_, i) => loads[(i + round) % loads.length]!);
      for (const l of order) {
        const { out, cpuUs, timeMs } = await run(l, seconds);
        time.get(l.s.name)!.push(timeMs);
        cpu.get(l.s.name)!.push(cpuUs);
        totals.set(l.s.name, totals.get(l.s.name)! + out.requests.total);
        // A 304 is the expected answer of the conditional GET; anything else not 2xx is a failure.
        if (!l.s.headers?.['if-none-match']) failures.set(l.s.name, failures.get(l.s.name)! + out.non2xx + out.errors);
      }
    }
    const ratio = (a: Load, b: Load, of: Map<string, number[]>) => (median(of.get(b.s.name)!) / median(of.get(a.s.name)!)).toFixed(2);
    const [c, k, p, pc, g, gc] = loads as [Load, Load, Load, Load, Load, Load];
    sections.push(
      [
        `### ${connections} connection${connections > 1 ? 's' : ''}`,
        '',
        '| scenario | ms/request (median) | rounds min-max | CPU µs/request (median) | requests | not 2xx |',
        '|---|--:|--:|--:|--:|--:|',
        ...loads.map((l) => {
          const t = time.get(l.s.name)!;
          return `| ${l.s.name} | ${median(t).toFixed(2)} | ${Math.min(...t).toFixed(2)}-${Math.max(...t).toFixed(2)} | ${median(cpu.get(l.s.name)!).toFixed(0)} | ${totals.get(l.s.name)} | ${failures.get(l.s.name)} |`;
        }),
        '',
        `Time per request, key / no key: **${ratio(c, k, time)}x** (CPU ${ratio(c, k, cpu)}x); PATCH with If-Match / without: **${ratio(p, pc, time)}x** (CPU ${ratio(p, pc, cpu)}x); GET 304 / 200: ${ratio(g, gc, time)}x (CPU ${ratio(g, gc, cpu)}x).`,
      ].join('\n'),
    );
  }
  const table = [
    `Median of ${rounds} alternated rounds of ${seconds} s per scenario; ${machine()};`,
    `database: ${pglite ? 'PGlite (memory)' : 'PostgreSQL'}; load average at the end ${loadavg()[0]!.toFixed(1)}.`,
    '',
    ...sections.flatMap((s) => [s, '']),
  ].join('\n');
  console.log(table);
  writeFileSync(`${here}results/write-safety.md`, table);
} finally {
  stopAll();
}
