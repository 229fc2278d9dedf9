/**
 * `pnpm bench`: the performance truth, measured from outside.
 *
 * On the database built by `pnpm bench:data` (BENCH_DATABASE_URL), starts the server as users do
 * (`node dist/server.js`, its own process) and the bare replay (`bench/bare.ts`, its own process),
 * then runs autocannon in a third process (`loader.mjs`) against each scenario of `scenarios.ts` on
 * both. Scenario by scenario the two are loaded in alternation: a BENCH_WARMUP run on each (default
 * 1 s), then BENCH_ROUNDS rounds (default 10) of a BENCH_SECONDS run (default 0.6) on each, the
 * order swapped every round, so a slow patch of a shared machine falls on both sides of a ratio
 * instead of on one (one run after the other moved single scenarios' ratios by up to 0.3 between
 * two tables).
 * Besides throughput it reads each process's CPU time (Linux /proc) around every run: CPU per
 * request does not depend on what else the machine is doing, so its ratio is the steadier figure
 * of the server's overhead on a shared machine. Throughput and CPU per request are totals over the
 * rounds; "rounds min-max" is the lowest and highest throughput ratio of single rounds (the noise).
 * Prints a table and writes it to bench/results/latest.md. BENCH_CONNECTIONS (default 1) sets the
 * clients; BENCH_ONLY=<substring>[|<substring>…] selects scenarios.
 * V8 keeps compiling a process's hot code in background threads for tens of seconds of load, and
 * that CPU counts in the process's time: before any measurement, a priming pass (BENCH_PRIME
 * seconds per scenario, default 1; 0 skips it) loads every scenario once on both processes, as a
 * server that has been answering a mix of requests has compiled its code paths: without it the
 * first scenarios measured pay for compiling the code the later ones share.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { captureStatements } from './capture.js';
import { autocannon, cpuMs, datasetContext, freePort, login, machine, start, startServer, stopAll, waitFor } from './harness.js';
import { type Scenario, scenarios } from './scenarios.js';
import { benchDatabaseUrl } from './target.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 0.6);
const rounds = Number(process.env.BENCH_ROUNDS ?? 10);
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

/** What one side answered over all rounds of a scenario. */
interface Tally {
  requests: number;
  seconds: number;
  /** CPU milliseconds of the answering process (null where /proc is absent). */
  cpu: number | null;
  bad: number;
  p50: number[];
  p99: number[];
}
const tally = (): Tally => ({ requests: 0, seconds: 0, cpu: 0, bad: 0, p50: [], p99: [] });
/** One measured run on `target`, added to `t`; returns its throughput (requests per second). */
async function measure(target: string, s: Scenario | null, pid: number | undefined, t: Tally): Promise<number> {
  const before = cpuMs(pid);
  const r = await autocannon(target, s, seconds, { tokens, connections });
  const after = cpuMs(pid);
  t.cpu = t.cpu === null || before === null || after === null ? null : t.cpu + (after - before);
  t.requests += r.requests.total;
  t.seconds += r.duration;
  t.bad += r.non2xx + r.errors;
  t.p50.push(r.latency.p50);
  t.p99.push(r.latency.p99);
  return r.duration > 0 ? r.requests.total / r.duration : 0;
}
const rps = (t: Tally) => (t.seconds > 0 ? t.requests / t.seconds : 0);
const cpuUs = (t: Tally) => (t.cpu === null || t.requests === 0 ? null : (t.cpu * 1000) / t.requests);
const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] ?? 0;
const us = (t: Tally | null) => (t === null || cpuUs(t) === null ? '-' : cpuUs(t)!.toFixed(0));

const rows: string[] = [];
const header =
  '| scenario | role | full p50 ms | full mean ms | full p99 ms | full req/s | full CPU µs/req | bare p50 ms | bare req/s | bare CPU µs/req | full/bare req/s | rounds min-max | bare/full CPU |';
console.log(`${transports} transports; ${connections} connection(s), ${rounds} rounds of ${seconds} s per side and scenario`);
console.log(header);
if (prime > 0) {
  for (const s of list) {
    await autocannon(`${server}${s.path}`, s, prime, { tokens, connections });
    const i = replays.findIndex((r) => r.name === s.name);
    if (i >= 0) await autocannon(`${bare}/replay/${i}`, null, prime, { connections });
  }
}
const ratios: number[] = [];
let reached = 0;
for (const s of list) {
  const i = replays.findIndex((r) => r.name === s.name);
  const sides = {
    full: { target: `${server}${s.path}`, scenario: s, pid: serverProcess.pid },
    bare: i >= 0 ? { target: `${bare}/replay/${i}`, scenario: null, pid: bareProcess.pid } : null,
  };
  await autocannon(sides.full.target, s, warmup, { tokens, connections });
  if (sides.bare) await autocannon(sides.bare.target, null, warmup, { connections });
  const full = tally();
  const b = sides.bare ? tally() : null;
  const roundRatios: number[] = [];
  for (let r = 0; r < rounds; r++) {
    // The order alternates, so neither side always runs right after the other's load.
    const order = r % 2 === 0 ? (['full', 'bare'] as const) : (['bare', 'full'] as const);
    const got = { full: 0, bare: 0 };
    for (const which of order) {
      const side = sides[which];
      if (side) got[which] = await measure(side.target, side.scenario, side.pid, which === 'full' ? full : b!);
    }
    if (b && got.bare > 0) roundRatios.push(got.full / got.bare);
  }
  const ratio = b && rps(b) > 0 ? rps(full) / rps(b) : null;
  if (ratio !== null) {
    ratios.push(ratio);
    if (ratio >= 0.85) reached++;
  }
  const cpuRatio = b && cpuUs(b) && cpuUs(full) ? (cpuUs(b)! / cpuUs(full)!).toFixed(2) : 'n/a';
  const spread = roundRatios.length ? `${Math.min(...roundRatios).toFixed(2)}-${Math.max(...roundRatios).toFixed(2)}` : '-';
  const mean = full.requests > 0 ? (connections * full.seconds * 1000) / full.requests : 0;
  const line = `| ${s.name}${full.bad ? ` (${full.bad} non-2xx!)` : ''} | ${s.role} | ${median(full.p50)} | ${mean.toFixed(2)} | ${Math.max(...full.p99)} | ${rps(full).toFixed(0)} | ${us(full)} | ${b ? median(b.p50) : '-'} | ${b ? rps(b).toFixed(0) : '-'} | ${us(b)} | ${ratio === null ? 'n/a' : ratio.toFixed(2)} | ${spread} | ${cpuRatio} |`;
  console.log(line);
  rows.push(line);
}
const summary = `full/bare throughput: median ${median(ratios).toFixed(2)}x over ${ratios.length} scenarios with a replay, ${reached} of them at 0.85x or more`;
console.log(`\n${summary}`);
stopAll();
rmSync(work, { recursive: true, force: true });

const report = [
  `# Benchmark: ${transports.toLocaleString('en')} transports`,
  '',
  `Machine: ${machine()}. PostgreSQL at ${new URL(url).host}. ${connections} connection(s); per scenario a ${warmup} s warm-up on each side,`,
  `then ${rounds} rounds of a ${seconds} s run on each, in alternating order (after a ${prime} s priming pass of every scenario on both).`,
  'Server (`node dist/server.js`), bare replay and load generator in three processes. Mean ms and req/s: the time spent over the',
  'requests answered in all rounds; CPU µs/req: CPU time of the answering process during the runs over the requests answered',
  '(steady on a shared machine, unlike req/s); "rounds min-max": the lowest and highest full/bare ratio of single rounds.',
  '',
  header,
  '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
  ...rows,
  '',
  summary,
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
