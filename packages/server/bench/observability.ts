/**
 * `pnpm bench:observability`: what metrics and enabled tracing cost a request, in one run.
 *
 * Starts the built server (`dist/server.js`) four times on one fresh database with the demo data
 * (a database of its own on the local PostgreSQL, BENCH_OBSERVABILITY_DATABASE_URL), each its own
 * process, differing only in what they observe:
 * - `off`: no METRICS_TOKEN (requests and queries are not timed for metrics) and no OTEL_* variable;
 * - `control`: the same as `off` in another process: its ratio to `off` is the noise of the run;
 * - `metrics`: METRICS_TOKEN set, and `/metrics` scraped every BENCH_SCRAPE_MS (default 1000: a
 *   scrape interval fifteen times Prometheus's default rate, so the scrapes' own cost is counted);
 * - `tracing`: OTEL_EXPORTER_OTLP_ENDPOINT naming a local OTLP/HTTP receiver in this process (it
 *   reads each export and answers 200), every request sampled (the SDK's default), spans batched
 *   and exported as in production (protobuf).
 * Then, for BENCH_ROUNDS rounds (default 12), each scenario (an agent's transport list, a
 * transport's detail, a transport created) loads the four servers one after the other, BENCH_SECONDS
 * each (default 2) with BENCH_CONNECTIONS clients (default 4), the order rotated every round, so a
 * slow patch of the shared machine falls on every side. CPU per request is the server process's
 * CPU time (Linux /proc) over the requests of a run. The table gives the medians over the rounds
 * and, for each variant, the median and range of its ratios to `off` round by round; it is
 * printed and written to bench/results/observability.md, with what one scrape costs the idle server
 * and what recording a request and its queries costs (prom-client, timed in this process).
 */
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import pg from 'pg';
import { autocannon, cpuMs, freePort, machine, start, stopAll, waitFor } from './harness.js';
import { observeQuery, observeRequest, recordQueries } from '../src/lib/metrics.js';
import { type Scenario, writeScenarios } from './scenarios.js';
import { serverUrl } from './target.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 2);
const rounds = Number(process.env.BENCH_ROUNDS ?? 12);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 4);
const scrapeMs = Number(process.env.BENCH_SCRAPE_MS ?? 1000);
const here = new URL('.', import.meta.url).pathname;
const METRICS_TOKEN = 'bench-metrics-token-0123456789';

const url = process.env.BENCH_OBSERVABILITY_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/transport_ops_observability_bench';
const admin = new pg.Client({ connectionString: serverUrl(url) });
await admin.connect();
const name = new URL(url).pathname.slice(1);
await admin.query(`drop database if exists "${name}" with (force)`);
await admin.query(`create database "${name}"`);
await admin.end();

/** The OTLP/HTTP receiver: reads every export, counts them and their bytes, answers an empty success. */
const received = { exports: 0, bytes: 0 };
const receiver = createServer((req, res) => {
  req.on('data', (chunk: Buffer) => {
    received.bytes += chunk.length;
  });
  req.on('end', () => {
    received.exports += 1;
    res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/x-protobuf' }).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const otlp = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

const common = {
  DATABASE_URL: url,
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  NODE_ENV: 'development',
  JWT_SECRET: 'bench-observability-jwt-secret-0123456789abcdef',
  RATE_LIMIT_ANONYMOUS: '1000000000',
  RATE_LIMIT_USER: '1000000000',
  RATE_LIMIT_ADMIN: '1000000000',
  IDEMPOTENCY_SWEEP_INTERVAL_MS: '0',
};
const VARIANTS = {
  off: {},
  control: {},
  metrics: { METRICS_TOKEN },
  tracing: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp, OTEL_SERVICE_NAME: 'transport-ops-bench' },
} as const;
type Variant = keyof typeof VARIANTS;
const variants = Object.keys(VARIANTS) as Variant[];

const servers = new Map<Variant, { base: string; pid: number | undefined }>();
let scraper: NodeJS.Timeout | undefined;
try {
  // One after the other: the first migrates and seeds, the others find the database ready.
  for (const variant of variants) {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const child = start(
      ['dist/server.js'],
      Object.assign({}, common, VARIANTS[variant], { PORT: String(port), SEED_DEMO_DATA: variant === 'off' ? 'true' : 'false' }),
    );
    await waitFor(base);
    servers.set(variant, { base, pid: child.pid });
  }
  const off = servers.get('off')!.base;
  const token = async (username: string) => {
    const res = await fetch(`${off}/auth/login`, {
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
  const [create] = writeScenarios();
  const created = await fetch(`${off}/trade/transports`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.get('agent')}` },
    body: JSON.stringify(create!.body),
  });
  const id = ((await created.json()) as { result: { id: number } }).result.id;
  const list: Scenario[] = [
    { name: 'transport list (agent, 10 a page)', role: 'agent', method: 'GET', path: '/trade/transports?limit=10', list: true },
    { name: 'transport detail (supervisor)', role: 'supervisor', method: 'GET', path: `/trade/transports/${id}`, list: false },
    create!,
  ];

  const metricsBase = servers.get('metrics')!.base;
  let scrapes = 0;
  let scrapeBytes = 0;
  scraper = setInterval(() => {
    fetch(`${metricsBase}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
      .then(async (res) => {
        if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
        scrapeBytes += (await res.text()).length;
        scrapes += 1;
      })
      .catch((error: unknown) => console.error(`scrape failed: ${String(error)}`));
  }, scrapeMs);

  const key = (s: Scenario, v: Variant) => `${s.name}|${v}`;
  const cpu = new Map<string, number[]>();
  const rps = new Map<string, number[]>();
  const bad = new Map<string, number>();
  const load = async (s: Scenario, v: Variant, duration: number) => {
    const { base, pid } = servers.get(v)!;
    const before = cpuMs(pid)!;
    const run = await autocannon(`${base}${s.path}`, s, duration, { tokens, connections });
    const used = cpuMs(pid)! - before;
    return { run, perRequest: (used * 1000) / Math.max(1, run.requests.total), rate: run.requests.total / run.duration };
  };
  // Warm-up: every scenario on every server, so that no measured run pays for compiling shared code.
  for (const s of list) for (const v of variants) await load(s, v, 2);
  for (let round = 0; round < rounds; round++) {
    for (const s of list) {
      const order = variants.map((_, i) => variants[(i + round) % variants.length]!);
      for (const v of order) {
        const { run, perRequest, rate } = await load(s, v, seconds);
        const k = key(s, v);
        cpu.set(k, [...(cpu.get(k) ?? []), perRequest]);
        rps.set(k, [...(rps.get(k) ?? []), rate]);
        bad.set(k, (bad.get(k) ?? 0) + run.non2xx + run.errors);
      }
    }
  }
  clearInterval(scraper);
  scraper = undefined;

  // What one scrape costs the server: the idle metrics server scraped once a second for 10 s, against
  // the idle `off` server over the same seconds.
  const idle = { metrics: cpuMs(servers.get('metrics')!.pid)!, off: cpuMs(servers.get('off')!.pid)! };
  const idleScrapes = 10;
  for (let i = 0; i < idleScrapes; i++) {
    const res = await fetch(`${metricsBase}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    await res.text();
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  const scrapeCpu = (cpuMs(servers.get('metrics')!.pid)! - idle.metrics - (cpuMs(servers.get('off')!.pid)! - idle.off)) / idleScrapes;

  // What recording costs a request, in this process: one request observation and three query observations.
  recordQueries();
  const operations = ['listTransports', 'getTransport', 'createTransport', 'listComplaints'];
  const calls = 200_000;
  const cpuStart = process.cpuUsage();
  for (let i = 0; i < calls; i++) {
    observeRequest(operations[i & 3]!, i & 1 ? 'GET' : 'POST', 200, 1.5);
    observeQuery(0.4, false);
    observeQuery(0.7, false);
    observeQuery(0.2, false);
  }
  const used = process.cpuUsage(cpuStart);
  const recordNs = ((used.user + used.system) * 1000) / calls;

  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  };
  /** The ratios of `v` to `off` round by round (the two ran within seconds of each other). */
  const paired = (values: Map<string, number[]>, s: Scenario, v: Variant) => {
    const base = values.get(key(s, 'off'))!;
    return values.get(key(s, v))!.map((value, round) => value / base[round]!);
  };
  const ratio = (values: number[]) => `${median(values).toFixed(2)}x, ${Math.min(...values).toFixed(2)}-${Math.max(...values).toFixed(2)}`;
  const cell = (s: Scenario, v: Variant) => {
    const c = median(cpu.get(key(s, v))!);
    const r = median(rps.get(key(s, v))!);
    if (v === 'off') return `${c.toFixed(0)} µs, ${r.toFixed(0)}/s`;
    return `${c.toFixed(0)} µs (${ratio(paired(cpu, s, v))}), ${r.toFixed(0)}/s (${ratio(paired(rps, s, v))})`;
  };
  const failures = [...bad.entries()].filter(([, n]) => n > 0).map(([k, n]) => `${k}: ${n}`);
  const table = [
    `Server CPU per request and requests/s, medians of ${rounds} alternated rounds of ${seconds} s, ${connections} connections;`,
    `${machine()}; PostgreSQL (local); load average at the end ${loadavg()[0]!.toFixed(1)}.`,
    '',
    'Each cell: CPU per request, requests/s; in brackets the median and the range of the ratios to `off` of single rounds.',
    '',
    '| scenario | off | control (off, another process) | metrics on (scraped) | tracing on (OTLP) |',
    '|---|---|---|---|---|',
    ...list.map((s) => `| ${s.name} | ${variants.map((v) => cell(s, v)).join(' | ')} |`),
    '',
    `Metrics: /metrics scraped ${scrapes} times (every ${scrapeMs} ms, ${(scrapeBytes / Math.max(1, scrapes) / 1024).toFixed(1)} kB each);`,
    `one scrape costs the idle server ${scrapeCpu.toFixed(1)} ms of CPU (${idleScrapes} scrapes); recording one request with three queries`,
    `costs ${(recordNs / 1000).toFixed(2)} µs of CPU (prom-client, in this process, ${calls} times).`,
    `Tracing: the receiver got ${received.exports} OTLP exports (${(received.bytes / 1048576).toFixed(1)} MB).`,
    `Answers other than 2xx: ${failures.length === 0 ? 'none' : failures.join('; ')}.`,
  ].join('\n');
  console.log(table);
  writeFileSync(`${here}results/observability.md`, `${table}\n`);
} finally {
  if (scraper) clearInterval(scraper);
  receiver.close();
  stopAll();
}
