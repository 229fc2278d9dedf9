/**
 * `pnpm bench`: the performance truth, measured from outside.
 *
 * On the database built by `pnpm bench:data` (BENCH_DATABASE_URL), starts the server as users do
 * (`node dist/server.js`, its own process) and the bare replay (`bench/bare.ts`, its own process),
 * then runs autocannon in a third process against each scenario of `scenarios.ts` on both.
 * Besides throughput it reads each process's CPU time (Linux /proc) around every run: CPU per
 * request does not depend on what else the machine is doing, so its ratio is the steadier figure
 * of the server's overhead on a shared machine.
 * Prints a table and writes it to bench/results/latest.md. BENCH_SECONDS (default 5) and
 * BENCH_CONNECTIONS (default 1) tune the runs; BENCH_ONLY=<substring>[|<substring>…] selects scenarios.
 * BENCH_WARMUP (seconds, default 1) is the load each scenario gets before its measured run. V8
 * keeps compiling a process's hot code in background threads for tens of seconds of load, and that
 * CPU counts in the process's time: with a short warm-up the first scenarios' CPU per request is
 * partly compilation (more for the server, which runs far more code than the bare replay). A
 * longer warm-up (e.g. 10) measures the steady state. Before any measurement, a priming pass
 * (BENCH_PRIME seconds per scenario, default 1; 0 skips it) loads every scenario once on both
 * processes, as a server that has been answering a mix of requests has compiled its code paths:
 * without it the first scenarios measured pay for compiling the code the later ones share.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { captureStatements } from './capture.js';
import { autocannon, cpuMs, datasetContext, freePort, login, machine, start, startServer, stopAll, waitFor } from './harness.js';
import { type Scenario, scenarios } from './scenarios.js';
import { benchDatabaseUrl } from './target.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 1);
const warmup = Number(process.env.BENCH_WARMUP ?? 1);
const prime = Number(process.env.BENCH_PRIME ?? 1);
const only = process.env.BENCH_ONLY?.split('|').filter(Boolean);
const url = benchDatabaseUrl();
const here = new URL('.', import.meta.url).pathname;

const { transports, context } = await datasetContext(url);
const list = scenarios(context).filter((s) => !only || only.some((o) => s.name.includes(o)));

const replays = await captureStatements(url, list);
const work = mkdtempSync(join(tmpdir(), 'transport-ops-bench-'));
const replayFile = join(work, 'replay.json');
writeFileSync(replayFile, JSON.stringify(replays));

const { base: server, process: serverProcess } = await startServer(url);
const barePort = await freePort();
const bareProcess = start(['bench/bare.ts', replayFile, String(barePort), url], {});
const bare = `http://127.0.0.1:${barePort}`;
await Promise.all([waitFor(server), waitFor(bare)]);
const tokens = await login(server);

interface Figures {
  p50: number;
  /** Mean latency in ms: autocannon's percentiles are whole milliseconds, the mean is not. */
  mean: number;
  p99: number;
  rps: number;
  bad: number;
  /** CPU time of the answering process per request, in microseconds (null where /proc is absent). */
  cpuUs: number | null;
}
/** A warm-up (BENCH_WARMUP s), then the measured run, with the CPU time `pid` spent during the latter. */
async function load(target: string, s: Scenario | null, pid: number | undefined): Promise<Figures> {
  await autocannon(target, s, warmup, { tokens, connections });
  const before = cpuMs(pid);
  const r = await autocannon(target, s, seconds, { tokens, connections });
  const after = cpuMs(pid);
  const cpuUs = before === null || after === null || r.requests.total === 0 ? null : ((after - before) * 1000) / r.requests.total;
  return { p50: r.latency.p50, mean: r.latency.average, p99: r.latency.p99, rps: r.requests.average, bad: r.non2xx + r.errors, cpuUs };
}
const us = (f: Figures | null) => (f?.cpuUs == null ? '-' : f.cpuUs.toFixed(0));

const rows: string[] = [];
const header =
  '| scenario | role | full p50 ms | full mean ms | full p99 ms | full req/s | full CPU µs/req | bare p50 ms | bare req/s | bare CPU µs/req | full/bare req/s | bare/full CPU |';
console.log(`${transports} transports; ${connections} connection(s), ${seconds} s per run`);
console.log(header);
if (prime > 0) {
  for (const s of list) {
    await autocannon(`${server}${s.path}`, s, prime, { tokens, connections });
    const i = replays.findIndex((r) => r.name === s.name);
    if (i >= 0) await autocannon(`${bare}/replay/${i}`, null, prime, { connections });
  }
}
for (const s of list) {
  const full = await load(`${server}${s.path}`, s, serverProcess.pid);
  const i = replays.findIndex((r) => r.name === s.name);
  const b = i >= 0 ? await load(`${bare}/replay/${i}`, null, bareProcess.pid) : null;
  const ratio = b ? (full.rps / b.rps).toFixed(2) : 'n/a';
  const cpuRatio = b?.cpuUs && full.cpuUs ? (b.cpuUs / full.cpuUs).toFixed(2) : 'n/a';
  const line = `| ${s.name}${full.bad ? ` (${full.bad} non-2xx!)` : ''} | ${s.role} | ${full.p50} | ${full.mean.toFixed(1)} | ${full.p99} | ${full.rps.toFixed(0)} | ${us(full)} | ${b?.p50 ?? '-'} | ${b ? b.rps.toFixed(0) : '-'} | ${us(b)} | ${ratio} | ${cpuRatio} |`;
  console.log(line);
  rows.push(line);
}
stopAll();
rmSync(work, { recursive: true, force: true });

const report = [
  `# Benchmark: ${transports.toLocaleString('en')} transports`,
  '',
  `Machine: ${machine()}. PostgreSQL at ${new URL(url).host}. ${connections} connection(s), ${seconds} s per run after a ${warmup} s warm-up (and a ${prime} s priming pass of every scenario);`,
  'server (`node dist/server.js`), bare replay and load generator in three processes. CPU µs/req: CPU time of the',
  'answering process during the run over the requests answered (steady on a shared machine, unlike req/s).',
  '',
  header,
  '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
  ...rows,
  '',
].join('\n');
mkdirSync(join(here, 'results'), { recursive: true });
writeFileSync(join(here, 'results', 'latest.md'), report);
if (only) {
  // A subset (BENCH_ONLY) never replaces the dataset's full table.
  console.log('written to bench/results/latest.md');
} else {
  writeFileSync(join(here, 'results', `${transports}.md`), report);
  console.log(`written to bench/results/latest.md and bench/results/${transports}.md`);
}
