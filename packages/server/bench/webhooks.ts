/**
 * `pnpm bench:webhooks`: webhook delivery measured from outside.
 *
 * Starts the built server (`node dist/server.js`, its own process) on a throwaway database (with
 * DATABASE_URL, a new PostgreSQL database; else an embedded one) with demo data, and a receiver
 * (node:http on 127.0.0.1, answering 200) in this process. Subscribes the receiver to
 * `transport.created`, then:
 * 1. steady load: creates transports through the API at `--rate` per second for `--seconds`
 *    (the demo agent, requests started on a fixed schedule, not waiting for each other) and
 *    measures, per event, the time from the change's commit to the receiver's answer. The commit
 *    is taken as the event's `occurredAt` (written inside the transaction, so slightly before the
 *    commit: the figure is an upper bound); the receiver stamps its answer with the same clock.
 * 2. sustained throughput: a burst of `--burst` transports created as fast as 20 clients can, and
 *    the delivery rate from the first to the last event received.
 * Prints the percentiles and writes bench/results/webhooks.md.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres pnpm bench:webhooks [--rate 100] [--seconds 60] [--burst 3000]
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { connect } from '../src/db/connect.js';
import { emitEvent } from '../src/modules/events/emit-repository.js';
import { freePort, throwawayDatabase } from './process.mjs';

const { values: args } = parseArgs({
  options: {
    rate: { type: 'string', default: '100' },
    seconds: { type: 'string', default: '60' },
    burst: { type: 'string', default: '3000' },
    direct: { type: 'boolean', default: false },
  },
});
// --direct: the events are written by this process straight into the database (one transaction
// each, through the server's own emitEvent), so the writes cost nothing to the server and the
// figures are the delivery pipeline's alone; the worker then learns of them by its poll
// (WEBHOOK_POLL_INTERVAL_MS, 200 ms here) instead of being woken by the write it answered.
const direct = args.direct ?? false;
const rate = Number(args.rate);
const seconds = Number(args.seconds);
const burst = Number(args.burst);
const serverDir = join(new URL('.', import.meta.url).pathname, '..');

// ---------------------------------------------------------------- the receiver
const received = new Map<string, { latencyMs: number; at: number }>();
/** Commit times of the events written by this process (--direct), by event id. */
const committed = new Map<string, number>();
const receiver = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (c: string) => (body += c));
  req.on('end', () => {
    res.statusCode = 200;
    res.end();
    const at = Date.now();
    const event = JSON.parse(body) as { id: string; occurredAt: string };
    const since = committed.get(event.id) ?? Date.parse(event.occurredAt);
    if (!received.has(event.id)) received.set(event.id, { latencyMs: at - since, at });
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks`;

// ---------------------------------------------------------------- the server, in its own process
const database = await throwawayDatabase(
  {
    ...process.env,
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    SEED_DEMO_DATA: 'true',
    RATE_LIMIT_USER: '100000000',
    RATE_LIMIT_ADMIN: '100000000',
    RATE_LIMIT_ANONYMOUS: '100000000',
    OUTBOX_INTERVAL_MS: '0',
    ...(direct ? { WEBHOOK_POLL_INTERVAL_MS: '200' } : {}),
  },
  'transport_ops_webhooks_bench',
);
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const server = spawn(process.execPath, [join(serverDir, 'dist/server.js')], {
  env: { ...database.env, PORT: String(port) },
  stdio: ['ignore', 'ignore', 'inherit'],
});
process.on('exit', () => server.kill('SIGTERM'));
for (let i = 0; ; i++) {
  try {
    if ((await fetch(`${base}/health`)).ok) break;
  } catch {}
  if (i > 600) throw new Error('server did not start');
  await new Promise((r) => setTimeout(r, 200));
}

async function call(method: string, path: string, token: string | null, body?: unknown) {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  const init: RequestInit = { method, headers };
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const res = await fetch(base + path, init);
  const json = (await res.json()) as { result: any };
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`);
  return json.result;
}
const login = async (username: string) =>
  (await call('POST', '/auth/login', null, { username, password: 'demo1234' })).access_token as string;
const admin = await login('admin');
const agent = await login('agent');
await call('POST', '/admin/webhooks', admin, { url: receiverUrl, eventTypes: ['transport.created'] });
const vehicleTypeId = (await call('GET', '/trade/transports/vehicle-types', agent))[0].id as number;
const directDb = direct && database.env.DATABASE_URL ? connect({ kind: 'postgres', url: database.env.DATABASE_URL, poolSize: 20 }) : null;
const createDirect = async (i: number) => {
  const id = await directDb!
    .transaction()
    .execute((trx) => emitEvent(trx, 'transport.created', { type: 'transport', id: i + 1 }, { id: i + 1 } as never));
  committed.set(id, Date.now());
  return i;
};
const createHttp = (i: number) =>
  call('POST', '/trade/transports', agent, {
    chargerFirstName: 'Bench',
    chargerLastName: 'Load',
    vehicleTypeId,
    loadingPoint: `Bench dock ${i}`,
  }).then((t) => t.id as number);
const create = direct ? createDirect : createHttp;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
async function drain(expected: number, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (received.size < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

// ---------------------------------------------------------------- 1. steady load
console.log(
  `steady: ${rate} ${direct ? 'events written directly' : 'transports created'}/s for ${seconds} s on ${database.target}, receiver ${receiverUrl}`,
);
const total = rate * seconds;
const started = Date.now();
const writes: Promise<number>[] = [];
let failedWrites = 0;
const failures = new Map<string, number>();
const noteFailure = (error: unknown) => {
  const key = String(error instanceof Error ? error.message : error).slice(0, 160);
  failures.set(key, (failures.get(key) ?? 0) + 1);
};
for (let i = 0; i < total; i++) {
  const due = started + (i * 1000) / rate;
  const wait = due - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  writes.push(
    create(i).catch((error: unknown) => {
      failedWrites += 1;
      noteFailure(error);
      return 0;
    }),
  );
}
await Promise.all(writes);
const loadSeconds = (Date.now() - started) / 1000;
await drain(total - failedWrites);
const steady = [...received.values()].map((r) => r.latencyMs).sort((a, b) => a - b);
const steadyResult = {
  events: steady.length,
  offeredPerSecond: total / loadSeconds,
  p50: percentile(steady, 50),
  p95: percentile(steady, 95),
  p99: percentile(steady, 99),
  max: steady[steady.length - 1]!,
};
console.log(steadyResult, { failedWrites, failures: [...failures.entries()].slice(0, 5) });

// ---------------------------------------------------------------- 2. sustained throughput
received.clear();
console.log(`burst: ${burst} transports as fast as 20 clients go`);
let next = 0;
const burstStarted = Date.now();
await Promise.all(
  Array.from({ length: 20 }, async () => {
    while (next < burst) await create(total + next++).catch(() => 0);
  }),
);
const writeSeconds = (Date.now() - burstStarted) / 1000;
await drain(burst, 120_000);
const times = [...received.values()].map((r) => r.at).sort((a, b) => a - b);
const deliverySeconds = (times[times.length - 1]! - burstStarted) / 1000;
const burstLatency = [...received.values()].map((r) => r.latencyMs).sort((a, b) => a - b);
const burstResult = {
  events: received.size,
  writesPerSecond: burst / writeSeconds,
  deliveredPerSecond: received.size / deliverySeconds,
  p50: percentile(burstLatency, 50),
  p99: percentile(burstLatency, 99),
};
console.log(burstResult);

const machine = `${cpus().length} x ${cpus()[0]?.model ?? 'CPU'}, load average ${loadavg()[0]!.toFixed(1)} at the end (shared machine)`;
const lines = [
  '# Webhook delivery (`pnpm bench:webhooks`)',
  '',
  `${new Date().toISOString()}, ${database.target}, one server process (WEBHOOK_CONCURRENCY default), receiver on 127.0.0.1; ${machine}.`,
  '',
  direct
    ? 'Mode --direct: events written by the bench straight into the database (one transaction each), commit time taken by the bench after each commit; the worker polls every 200 ms.'
    : "Mode HTTP: events caused by POST /trade/transports (demo agent); commit time taken as the event's occurredAt (written inside the transaction: an upper bound).",
  '',
  `Steady load: ${total} ${direct ? 'events written' : 'transports created'} at ${rate}/s (offered ${steadyResult.offeredPerSecond.toFixed(1)}/s), ${steadyResult.events} events delivered, ${failedWrites} writes failed.`,
  '',
  ...[...failures].map(([message, n]) => `- ${n} failed writes: ${message.slice(0, 120)}`),
  '',
  '| commit -> receiver 2xx | p50 | p95 | p99 | max |',
  '|---|--:|--:|--:|--:|',
  `| ms | ${steadyResult.p50} | ${steadyResult.p95} | ${steadyResult.p99} | ${steadyResult.max} |`,
  '',
  `Burst: ${burst} transports written at ${burstResult.writesPerSecond.toFixed(0)}/s by 20 clients; ${burstResult.events} delivered at ${burstResult.deliveredPerSecond.toFixed(0)} events/s sustained (first write to last delivery); latency p50 ${burstResult.p50} ms, p99 ${burstResult.p99} ms.`,
  '',
];
writeFileSync(join(serverDir, `bench/results/webhooks${direct ? '-direct' : ''}.md`), lines.join('\n'));
server.kill('SIGTERM');
await new Promise((r) => server.once('exit', r));
receiver.close();
receiver.closeAllConnections();
await directDb?.destroy();
await database.cleanup();
process.exit(0);
