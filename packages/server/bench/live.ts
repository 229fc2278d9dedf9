/**
 * `pnpm bench:live`: fan-out of the live stream (GET /trade/transports/{id}/live), measured from outside.
 *
 * The built server runs in its own process on a private PostgreSQL database
 * (BENCH_DATABASE_URL, else DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres;
 * `transport_ops_live_bench_<pid>`, dropped at the end), with room for `--subscribers` streams.
 * This process opens that many streams of one transport (fetch streaming, as the SDK does), then
 * `--rounds` times commits one live event of that transport straight in the database (a plain
 * INSERT into transport_live_events in its own transaction: the trigger orders it and notifies)
 * and times, from the moment COMMIT returned, when each subscriber has the event parsed.
 * Figures: per round the last subscriber's delay, p50 and max over the rounds; and p50 / max over
 * every (subscriber, round). The subscribers share this process, so their parsing is in the figure.
 * Prints them and writes bench/results/live.md.
 *
 *   pnpm bench:live [--subscribers 500] [--rounds 30]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { freePort } from './process.mjs';

const { values: args } = parseArgs({
  options: { subscribers: { type: 'string', default: '500' }, rounds: { type: 'string', default: '30' } },
});
const SUBSCRIBERS = Number(args.subscribers);
const ROUNDS = Number(args.rounds);
const serverDir = join(new URL('.', import.meta.url).pathname, '..');
const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dbName = `transport_ops_live_bench_${process.pid}`;
const benchUrl = Object.assign(new URL(adminUrl), { pathname: `/${dbName}` }).toString();

const children: ChildProcess[] = [];
process.on('exit', () => {
  for (const c of children) c.kill('SIGTERM');
});

async function startServer(): Promise<{ base: string; child: ChildProcess }> {
  const port = await freePort();
  const { DATABASE_URL: _, ...inherited } = process.env;
  const child = spawn(process.execPath, [join(serverDir, 'dist/server.js')], {
    env: {
      ...inherited,
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      SEED_DEMO_DATA: 'true',
      RATE_LIMIT_USER: '100000000',
      RATE_LIMIT_ADMIN: '100000000',
      RATE_LIMIT_ANONYMOUS: '100000000',
      OUTBOX_INTERVAL_MS: '0',
      WEBHOOK_POLL_INTERVAL_MS: '0',
      DATABASE_URL: benchUrl,
      LIVE_STREAMS_PER_USER: String(SUBSCRIBERS),
      LIVE_STREAMS_MAX: String(SUBSCRIBERS + 10),
      PORT: String(port),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/health`)).ok) break;
    } catch {}
    if (i > 900) throw new Error('server did not start');
    await new Promise((r) => setTimeout(r, 200));
  }
  return { base, child };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
};

/** One stream: calls `onEvent(id, at)` when an event's frame is complete (time taken as it is parsed). */
async function subscribe(url: string, token: string, onEvent: (id: number, at: number) => void, signal: AbortSignal) {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal });
  if (res.status !== 200) throw new Error(`stream answered ${res.status}: ${await res.text()}`);
  const decoder = new TextDecoder();
  let buffer = '';
  let id: number | null = null;
  void (async () => {
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let nl = buffer.indexOf('\n');
        while (nl >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          nl = buffer.indexOf('\n');
          if (line.startsWith('id: ')) id = Number(line.slice(4));
          else if (line === '' && id !== null) {
            onEvent(id, performance.now());
            id = null;
          }
        }
      }
    } catch {}
  })();
}

const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(`create database ${pg.escapeIdentifier(dbName)}`);
let server: ChildProcess | null = null;
const abort = new AbortController();
try {
  const started = await startServer();
  server = started.child;
  const { base } = started;
  const login = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'agent', password: 'demo1234' }),
  });
  const token = ((await login.json()) as { result: { access_token: string } }).result.access_token;
  const list = await fetch(`${base}/trade/transports?limit=1`, { headers: { authorization: `Bearer ${token}` } });
  const transportId = ((await list.json()) as { result: { data: { id: number }[] } }).result.data[0]!.id;

  // arrivals.get(eventId)[subscriber] = when it was parsed.
  const arrivals = new Map<number, number[]>();
  let waiting: { id: number; resolve: () => void } | null = null;
  const url = `${base}/trade/transports/${transportId}/live`;
  for (let n = 0; n < SUBSCRIBERS; n++) {
    await subscribe(
      url,
      token,
      (id, at) => {
        if (!arrivals.has(id)) arrivals.set(id, []);
        const list = arrivals.get(id)!;
        list.push(at);
        if (waiting && waiting.id === id && list.length === SUBSCRIBERS) waiting.resolve();
      },
      abort.signal,
    );
  }
  // Every stream has its snapshot (all share its id).
  while ([...arrivals.values()].reduce((n, l) => n + l.length, 0) < SUBSCRIBERS) await new Promise((r) => setTimeout(r, 50));
  console.log(`${SUBSCRIBERS} streams open on transport ${transportId}`);

  const writer = new pg.Client({ connectionString: benchUrl });
  await writer.connect();
  const lastDelays: number[] = [];
  const allDelays: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const data = JSON.stringify({
      transportId,
      accepted: 1,
      position: {
        latitude: 45 + round * 1e-3,
        longitude: 4.8,
        recordedAt: new Date().toISOString(),
        speedKmh: 80,
        headingDeg: 180,
        accuracyM: 5,
      },
    });
    await writer.query('begin');
    const { rows } = await writer.query(
      `insert into transport_live_events (id, transport_id, type, data) values (0, $1, 'position', $2::jsonb) returning id`,
      [transportId, data],
    );
    const id = Number(rows[0].id);
    const all = new Promise<void>((resolve) => {
      waiting = { id, resolve };
    });
    await writer.query('commit');
    const committed = performance.now();
    if ((arrivals.get(id)?.length ?? 0) < SUBSCRIBERS) await all;
    const times = arrivals.get(id)!.map((at) => at - committed);
    lastDelays.push(Math.max(...times));
    allDelays.push(...times);
    await new Promise((r) => setTimeout(r, 100));
  }
  await writer.end();

  const ms = (v: number) => `${v.toFixed(1)} ms`;
  const lines = [
    `# Live stream fan-out (\`pnpm bench:live\`)`,
    '',
    `${new Date().toISOString()}, ${cpus().length} cores (load ${loadavg()[0]!.toFixed(2)}), PostgreSQL, the built server in its own process.`,
    `One event committed in the database, ${SUBSCRIBERS} subscribers of its transport (one user, this process), ${ROUNDS} rounds.`,
    '',
    '| measure | p50 | max |',
    '|---|---|---|',
    `| commit to the last of ${SUBSCRIBERS} subscribers (per round) | ${ms(percentile(lastDelays, 50))} | ${ms(Math.max(...lastDelays))} |`,
    `| commit to a subscriber (every subscriber and round) | ${ms(percentile(allDelays, 50))} | ${ms(Math.max(...allDelays))} |`,
  ];
  console.log(lines.join('\n'));
  writeFileSync(join(serverDir, 'bench/results/live.md'), `${lines.join('\n')}\n`);
} finally {
  abort.abort();
  if (server) {
    const s = server;
    await new Promise<void>((resolve) => {
      s.once('exit', () => resolve());
      s.kill('SIGTERM');
    });
  }
  await admin.query(`drop database if exists ${pg.escapeIdentifier(dbName)} with (force)`);
  await admin.end();
}
