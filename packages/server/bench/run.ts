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
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { connect } from '../src/db/connect.js';
import { captureStatements } from './capture.js';
import { type Scenario, scenarios, USERS } from './scenarios.js';
import { benchDatabaseUrl } from './target.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 1);
const warmup = Number(process.env.BENCH_WARMUP ?? 1);
const prime = Number(process.env.BENCH_PRIME ?? 1);
const only = process.env.BENCH_ONLY?.split('|').filter(Boolean);
const url = benchDatabaseUrl();
const here = new URL('.', import.meta.url).pathname;
const serverDir = join(here, '..');

const db = connect({ kind: 'postgres', url, poolSize: 1 });
const size = await sql<{ n: number; id: number }>`select count(*)::int as n, max(id) as id from transports`.execute(db).catch(() => {
  throw new Error(`no benchmark data at ${url}: run pnpm bench:data --transports N first`);
});
const { n: transports, id: transportId } = size.rows[0]!;
const middle = await sql<{
  k: string;
  id: number;
}>`select created_at::text as k, id from transports order by created_at desc, id desc offset ${Math.floor(transports / 2)} limit 1`.execute(
  db,
);
const topic = await sql<{ id: number }>`select id from forum_topics order by messages_count desc, id limit 1`.execute(db);
await db.destroy();
const deepCursor = Buffer.from(
  JSON.stringify({ s: 't.created_at,t.id:desc', k: [middle.rows[0]!.k, String(middle.rows[0]!.id)] }),
).toString('base64url');
const list = scenarios({ transportId, deepCursor, topicId: topic.rows[0]?.id ?? 1 }).filter(
  (s) => !only || only.some((o) => s.name.includes(o)),
);

const replays = await captureStatements(url, list);
const work = mkdtempSync(join(tmpdir(), 'transport-ops-bench-'));
const replayFile = join(work, 'replay.json');
writeFileSync(replayFile, JSON.stringify(replays));

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
const children: ChildProcess[] = [];
process.on('exit', () => {
  for (const child of children) child.kill('SIGTERM');
});
const start = (args: string[], env: Record<string, string>) => {
  // The server runs as users run it: its built JavaScript (`pnpm bench` builds it when stale).
  const loader = args[0]!.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...loader, ...args], {
    cwd: serverDir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  return child;
};
const waitFor = async (base: string) => {
  for (let i = 0; i < 300; i++) {
    if (
      await fetch(`${base}/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${base} did not start`);
};

const serverPort = await freePort();
const serverProcess = start(['dist/server.js'], {
  DATABASE_URL: url,
  PORT: String(serverPort),
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  NODE_ENV: 'development',
  SEED_DEMO_DATA: 'false',
  RATE_LIMIT_ANONYMOUS: '1000000000',
  RATE_LIMIT_USER: '1000000000',
  RATE_LIMIT_ADMIN: '1000000000',
});
const barePort = await freePort();
const bareProcess = start(['bench/bare.ts', replayFile, String(barePort), url], {});
const server = `http://127.0.0.1:${serverPort}`;
const bare = `http://127.0.0.1:${barePort}`;
await Promise.all([waitFor(server), waitFor(bare)]);

const tokens = new Map<string, string>();
for (const [role, username] of Object.entries(USERS)) {
  const res = await fetch(`${server}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password: 'demo1234' }),
  });
  tokens.set(role, ((await res.json()) as { result: { access_token: string } }).result.access_token);
}

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
const autocannonBin = createRequire(import.meta.url).resolve('autocannon/autocannon.js');
const clockTicks = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100;
  } catch {
    return 100;
  }
})();
/** User + system CPU time a process has used so far, in milliseconds; null where /proc is absent. */
function cpuMs(pid: number | undefined): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
  } catch {
    return null;
  }
}
interface Run {
  latency: { p50: number; p99: number; average: number };
  requests: { average: number; total: number };
  non2xx: number;
  errors: number;
}
function autocannon(target: string, s: Scenario | null, duration: number): Promise<Run> {
  const args = [autocannonBin, '-j', '-c', String(connections), '-d', String(duration)];
  if (s && s.role !== 'anonymous') args.push('-H', `authorization=Bearer ${tokens.get(s.role)}`);
  if (s?.body) args.push('-m', s.method, '-H', 'content-type=application/json', '-b', JSON.stringify(s.body));
  args.push(target);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', () => {
      try {
        resolve(JSON.parse(out.trim().split('\n').at(-1)!) as Run);
      } catch (error) {
        reject(error);
      }
    });
  });
}
/** A warm-up (BENCH_WARMUP s), then the measured run, with the CPU time `pid` spent during the latter. */
async function load(target: string, s: Scenario | null, pid: number | undefined): Promise<Figures> {
  await autocannon(target, s, warmup);
  const before = cpuMs(pid);
  const r = await autocannon(target, s, seconds);
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
    await autocannon(`${server}${s.path}`, s, prime);
    const i = replays.findIndex((r) => r.name === s.name);
    if (i >= 0) await autocannon(`${bare}/replay/${i}`, null, prime);
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
for (const child of children) child.kill('SIGTERM');
rmSync(work, { recursive: true, force: true });

const cpu = cpus();
const machine = `${cpu.length} x ${cpu[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}, ${new Date().toISOString()}`;
const report = [
  `# Benchmark: ${transports.toLocaleString('en')} transports`,
  '',
  `Machine: ${machine}. PostgreSQL at ${new URL(url).host}. ${connections} connection(s), ${seconds} s per run after a ${warmup} s warm-up (and a ${prime} s priming pass of every scenario);`,
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
