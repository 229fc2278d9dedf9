/**
 * `pnpm bench:upload`: a large upload and download, measured from outside, with the delay they cause
 * to other requests.
 *
 * Starts the built server (`node dist/server.js`, its own process) on a new embedded database in a
 * temporary directory (or, with DATABASE_URL, on a throwaway PostgreSQL database), with demo data.
 * Logs in as the demo agent, then for each file operation (transport document upload and download,
 * complaint attachment upload and download) runs it while a second client, in a worker thread of
 * its own, calls `GET /auth/profile` every ~20 ms. Prints the operation's time, the server's CPU time
 * and the longest delay of its event loop during it (a probe preloaded into the server reports it),
 * and the latency of the concurrent GETs (p50, p99, max) next to their latency when the server is idle.
 * On a busy machine the GET latencies include waiting for a CPU; the loop delay and CPU time show
 * what the server itself spent. Last, eight uploads at once, with the server's peak resident memory.
 *
 *   pnpm bench:upload [--mb 10] [--runs 3]
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres pnpm bench:upload
 *   FILE_STORE=database pnpm bench:upload        (any server variable passes through)
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { cpuSeconds, freePort, throwawayDatabase } from './process.mjs';

const { values: args } = parseArgs({ options: { mb: { type: 'string', default: '10' }, runs: { type: 'string', default: '3' } } });
const bytes = Math.round(Number(args.mb) * 1024 * 1024);
const runs = Number(args.runs);
const serverDir = join(new URL('.', import.meta.url).pathname, '..');

// ---------------------------------------------------------------- the server, in its own process
const database = await throwawayDatabase(
  {
    ...process.env,
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    SEED_DEMO_DATA: 'true',
    RATE_LIMIT_USER: '1000000',
    RATE_LIMIT_ANONYMOUS: '1000000',
    OUTBOX_INTERVAL_MS: '0',
  },
  'transport_ops_upload_bench',
);
const { env, cleanup } = database;
let target: string = database.target;
target += process.env.FILE_STORE ? `, FILE_STORE=${process.env.FILE_STORE}` : ', default file store';

const port = await freePort();
const base = `http://127.0.0.1:${port}`;
// The server gets a probe of its event loop's delay (bench/loop-delay.cjs, asked over IPC).
const server = spawn(process.execPath, ['--require', join(serverDir, 'bench/loop-delay.cjs'), join(serverDir, 'dist/server.js')], {
  env: { ...env, PORT: String(port) },
  stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
});
/** user + system CPU milliseconds of the server process so far, from /proc. */
const serverCpuMs = () => cpuSeconds(server.pid!) * 1000;
/** The longest and p99 delay of the server's event loop since the previous call. */
const loopDelay = () =>
  new Promise<{ maxMs: number; p99Ms: number }>((resolve) => {
    server.once('message', (m) => resolve(m as { maxMs: number; p99Ms: number }));
    server.send('loop-delay');
  });
const serverExited = new Promise((resolve) => server.once('exit', resolve));
process.on('exit', () => server.kill('SIGTERM'));

// ---------------------------------------------------------------- the concurrent client, in a worker
// Plain JavaScript evaluated in a worker thread: its event loop is not the one that builds and sends
// the large bodies, so its latencies are the server's.
const hammerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const { base, token, periodMs } = workerData;
let running = false;
let samples = [];
parentPort.on('message', async (m) => {
  if (m === 'start') {
    samples = [];
    running = true;
    while (running) {
      const began = performance.now();
      const res = await fetch(base + '/auth/profile', { headers: { authorization: 'Bearer ' + token } });
      await res.arrayBuffer();
      const ms = performance.now() - began;
      if (res.status !== 200) throw new Error('GET /auth/profile answered ' + res.status);
      samples.push(ms);
      const wait = periodMs - ms;
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    parentPort.postMessage(samples);
  } else if (m === 'stop') {
    running = false;
  }
});
`;

async function json(res: Response) {
  const body = (await res.json()) as { success: boolean; message: string; result: unknown };
  if (!res.ok) throw new Error(`${res.url} answered ${res.status}: ${JSON.stringify(body)}`);
  return body.result as Record<string, unknown>;
}

/** The server's resident set size in MB, from /proc (0 where /proc is absent). */
const residentMb = () => {
  try {
    const status = readFileSync(`/proc/${server.pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
};

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] ?? Number.NaN;
};
const ms = (x: number) => `${Math.round(x)} ms`;

try {
  for (;;) {
    if (server.exitCode !== null) throw new Error(`the server exited with ${server.exitCode}`);
    const ready = await fetch(`${base}/ready`).catch(() => null);
    if (ready?.status === 200) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const login = await json(
    await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'agent', password: 'demo1234' }),
    }),
  );
  const token = login.access_token as string;
  const auth = { authorization: `Bearer ${token}` };
  const page = await json(await fetch(`${base}/trade/transports?limit=50`, { headers: auth }));
  const transport = (page.data as Array<{ id: number; status: string }>).find((t) => t.status !== 'ARCHIVED');
  if (!transport) throw new Error('the demo agent has no transport that takes documents');

  const worker = new Worker(hammerSource, { eval: true, workerData: { base, token, periodMs: 20 } });
  let workerError: Error | null = null;
  worker.on('error', (error) => {
    workerError = error;
  });
  type Measure<T> = { value: T; elapsed: number; gets: number[]; cpuMs: number; loop: { maxMs: number; p99Ms: number } };
  const hammer = async <T>(work: () => Promise<T>): Promise<Measure<T>> => {
    const done = new Promise<number[]>((resolve) => worker.once('message', resolve));
    worker.postMessage('start');
    await new Promise((r) => setTimeout(r, 200)); // the GETs run before the operation starts...
    await loopDelay();
    const cpuBefore = serverCpuMs();
    const began = performance.now();
    const value = await work();
    const elapsed = performance.now() - began;
    const cpuMs = serverCpuMs() - cpuBefore;
    const loop = await loopDelay();
    await new Promise((r) => setTimeout(r, 200)); // ...and after it ends
    worker.postMessage('stop');
    const gets = await done;
    if (workerError) throw workerError;
    return { value, elapsed, gets, cpuMs, loop };
  };

  // A PDF by its magic number, random bytes after it (incompressible, like scans).
  const file = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(bytes - 9)]);
  const upload = async (path: string, fields: Record<string, string>) => {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    form.append('files', new Blob([file], { type: 'application/pdf' }), 'scan.pdf');
    const result = await json(await fetch(`${base}${path}`, { method: 'POST', headers: auth, body: form }));
    const uploaded = (result.uploaded as Array<{ url: string; size: number }>)[0];
    if (!uploaded || uploaded.size !== bytes) throw new Error(`${path}: the file was not stored: ${JSON.stringify(result)}`);
    return uploaded.url;
  };
  const download = async (url: string) => {
    const res = await fetch(`${base}${url}`, { headers: auth });
    const body = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200 || !body.equals(file)) throw new Error(`${url}: answered ${res.status} with ${body.length} bytes`);
  };

  const idle = await hammer(() => new Promise((r) => setTimeout(r, 1000)));
  const idleP50 = quantile(idle.gets, 0.5);
  const [load] = loadavg();
  console.log(
    `${target}; ${(bytes / 1048576).toFixed(1)} MB file; concurrent GET /auth/profile every 20 ms; load average ${load!.toFixed(1)} on ${cpus().length} CPUs`,
  );
  console.log(
    `idle 1 s: GET p50 ${ms(idleP50)}, p99 ${ms(quantile(idle.gets, 0.99))}, max ${ms(Math.max(...idle.gets))}; server event loop delay max ${ms(idle.loop.maxMs)}`,
  );
  console.log('| operation | run | time | server CPU | server loop delay max | GETs | GET p50 | GET p99 | GET max | GET max - idle p50 |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  const row = (name: string, run: number, r: Measure<unknown>) => {
    const max = Math.max(...r.gets);
    const cells = [
      ms(r.elapsed),
      ms(r.cpuMs),
      ms(r.loop.maxMs),
      r.gets.length,
      ms(quantile(r.gets, 0.5)),
      ms(quantile(r.gets, 0.99)),
      ms(max),
      ms(max - idleP50),
    ];
    console.log(`| ${name} | ${run} | ${cells.join(' | ')} |`);
  };
  for (let run = 1; run <= runs; run++) {
    const doc = await hammer(() => upload('/trade/transports/upload', { transportId: String(transport.id), documentType: 'OTHER' }));
    row('upload transport document', run, doc);
    row('download transport document', run, await hammer(() => download(doc.value)));
    const att = await hammer(() => upload('/trade/complaints/upload', {}));
    row('upload complaint attachment', run, att);
    row('download complaint attachment', run, await hammer(() => download(att.value)));
  }
  await worker.terminate();

  // Memory: the server's resident set, sampled every 5 ms while `parallel` uploads arrive at once.
  const parallel = 8;
  const before = residentMb();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, residentMb());
  }, 5);
  const began = performance.now();
  await Promise.all(Array.from({ length: parallel }, () => upload('/trade/complaints/upload', {})));
  const elapsed = performance.now() - began;
  clearInterval(sampler);
  console.log(
    `\n${parallel} uploads at once: ${ms(elapsed)}; server resident memory ${before.toFixed(0)} MB before, peak ${peak.toFixed(0)} MB (+${(peak - before).toFixed(0)} MB for ${((parallel * bytes) / 1048576).toFixed(0)} MB of files)`,
  );
} finally {
  server.kill('SIGTERM');
  await serverExited;
  await cleanup();
}
