/**
 * `pnpm bench:tracking`: positions of transports, measured from outside.
 *
 * 1. PostgreSQL (BENCH_DATABASE_URL, else DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres):
 *    a private database (`transport_ops_tracking_bench_<pid>`, dropped at the end) and the built
 *    server on it (its own process, demo data). The agent's transports are made VALIDATED with
 *    unloading coordinates. Positions are generated set-based (generate_series) for 10,000
 *    transports, one point every 30 s each, first up to `--small` (100,000) points, then up to
 *    `--positions` (10 million). At each size, `getTransportTracking` and the first page of
 *    `getTransportTimeline` of one transport are timed (`--reads` sequential calls each, p50).
 *    At the large size, positions are posted over HTTP in batches of 500 by `--clients`
 *    concurrent clients for `--seconds`, each to a transport of its own: positions stored per second.
 * 2. The embedded database (PGlite, the default without DATABASE_URL): the same ingest over HTTP
 *    for `--pglite-seconds` into a fresh data directory.
 * Prints the figures and writes bench/results/tracking.md.
 *
 *   pnpm bench:tracking [--positions 10000000] [--small 100000] [--seconds 20] [--clients 8] [--reads 200] [--pglite-seconds 15]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { freePort } from './process.mjs';

const { values: args } = parseArgs({
  options: {
    positions: { type: 'string', default: '10000000' },
    small: { type: 'string', default: '100000' },
    seconds: { type: 'string', default: '20' },
    clients: { type: 'string', default: '8' },
    reads: { type: 'string', default: '200' },
    'pglite-seconds': { type: 'string', default: '15' },
  },
});
const LARGE = Number(args.positions);
const SMALL = Number(args.small);
const SECONDS = Number(args.seconds);
const CLIENTS = Number(args.clients);
const READS = Number(args.reads);
const PGLITE_SECONDS = Number(args['pglite-seconds']);
const TRUCKS = 10_000;
/** Generated transports' ids start here (the positions table has no foreign key: they need no transport row). */
const FAKE_ID = 1_000_000;
const serverDir = join(new URL('.', import.meta.url).pathname, '..');

const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dbName = `transport_ops_tracking_bench_${process.pid}`;
const benchUrl = Object.assign(new URL(adminUrl), { pathname: `/${dbName}` }).toString();

const children: ChildProcess[] = [];
process.on('exit', () => {
  for (const c of children) c.kill('SIGTERM');
});

const SERVER_ENV = {
  NODE_ENV: 'development',
  LOG_LEVEL: 'warn',
  SEED_DEMO_DATA: 'true',
  RATE_LIMIT_USER: '100000000',
  RATE_LIMIT_ADMIN: '100000000',
  RATE_LIMIT_ANONYMOUS: '100000000',
  OUTBOX_INTERVAL_MS: '0',
  WEBHOOK_POLL_INTERVAL_MS: '0',
};

async function startServer(env: Record<string, string>): Promise<{ base: string; child: ChildProcess }> {
  const port = await freePort();
  const { DATABASE_URL: _, ...inherited } = process.env;
  const child = spawn(process.execPath, [join(serverDir, 'dist/server.js')], {
    env: { ...inherited, ...SERVER_ENV, ...env, PORT: String(port) },
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

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

function client(base: string) {
  const call = async (method: string, path: string, token: string | null, body?: unknown) => {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(base + path, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    const json = (await res.json()) as { result: any };
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`);
    return json.result;
  };
  const login = async (username: string) =>
    (await call('POST', '/auth/login', null, { username, password: 'demo1234' })).access_token as string;
  return { call, login };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
};

async function timeReads(call: ReturnType<typeof client>['call'], token: string, path: string): Promise<number> {
  for (let i = 0; i < 20; i++) await call('GET', path, token);
  const times: number[] = [];
  for (let i = 0; i < READS; i++) {
    const started = performance.now();
    await call('GET', path, token);
    times.push(performance.now() - started);
  }
  return percentile(times, 50);
}

/** Posts batches of 500 from `clients` concurrent clients, each to its own transport, for `seconds`. */
async function ingest(call: ReturnType<typeof client>['call'], token: string, transportIds: number[], seconds: number) {
  const deadline = Date.now() + seconds * 1000;
  // Points 1 s apart from six days ago: inside the accepted window, away from the generated ones.
  const origin = Date.now() - 6 * 86_400_000;
  let accepted = 0;
  let batches = 0;
  const started = performance.now();
  await Promise.all(
    transportIds.map(async (id) => {
      for (let b = 0; Date.now() < deadline; b++) {
        const positions = Array.from({ length: 500 }, (_, i) => ({
          latitude: 45 + ((b * 500 + i) % 10_000) * 1e-4,
          longitude: 4.8,
          recordedAt: new Date(origin + (b * 500 + i) * 1000).toISOString(),
          speedKmh: 80,
        }));
        const result = await call('POST', `/trade/transports/${id}/positions`, token, { positions });
        accepted += result.accepted as number;
        batches++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  return { accepted, batches, elapsed, perSecond: accepted / elapsed };
}

/** `n` new transports of the caller, by the API. */
async function newTransports(call: ReturnType<typeof client>['call'], token: string, n: number): Promise<number[]> {
  const vehicleTypeId = (await call('GET', '/trade/transports/vehicle-types', token))[0].id as number;
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = await call('POST', '/trade/transports', token, {
      chargerFirstName: 'Bench',
      chargerLastName: 'Truck',
      vehicleTypeId,
      loadingPoint: `Bench dock ${i}`,
    });
    ids.push(t.id as number);
  }
  return ids;
}

/** Generated positions up to `total` rows: TRUCKS transports, one point every 30 s each, ending now. */
async function generate(db: pg.Client, from: number, to: number) {
  const started = performance.now();
  for (let start = from; start < to; start += 1_000_000) {
    const end = Math.min(to, start + 1_000_000);
    await db.query(
      `insert into transport_positions (transport_id, recorded_at, latitude, longitude, speed_kmh, heading_deg, accuracy_m)
       select ${FAKE_ID} + g % ${TRUCKS}, now() - (((g / ${TRUCKS}) * 30 + 60)::float8) * interval '1 second',
         44 + (g % 997) * 0.002, 4.5 + (g % 991) * 0.002, 70 + (g % 20), g % 360, 5
       from generate_series($1::bigint, $2::bigint - 1) g`,
      [start, end],
    );
  }
  await db.query('analyze transport_positions');
  return (performance.now() - started) / 1000;
}

// ---------------------------------------------------------------- PostgreSQL
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(`create database ${dbName}`);
const lines: string[] = [];
const log = (line: string) => {
  console.log(line);
  lines.push(line);
};
try {
  const server = await startServer({ DATABASE_URL: benchUrl });
  const { call, login } = client(server.base);
  const agent = await login('agent');
  const db = new pg.Client({ connectionString: benchUrl });
  await db.connect();
  const ids = await newTransports(call, agent, CLIENTS + 1);
  // Made trackable (as two validations would), with the unloading point at Fos-sur-Mer and a window.
  await db.query(
    `update transports set status = 'VALIDATED', validation_level = 2, unloading_latitude = 43.4381, unloading_longitude = 4.9446,
       unloading_window_start = now(), unloading_window_end = now() + interval '4 hours'
     where id = any($1)`,
    [ids],
  );
  const [measured, ...writers] = ids as [number, ...number[]];
  // The measured transport: a day of points (every 30 s), a few milestones.
  await db.query(
    `insert into transport_positions (transport_id, recorded_at, latitude, longitude, speed_kmh)
     select $1, now() - g * interval '30 seconds', 45.7 - g * 0.0003, 4.83, 80 from generate_series(1, 2880) g`,
    [measured],
  );
  await db.query(
    `insert into transport_last_positions (transport_id, recorded_at, latitude, longitude, speed_kmh)
     values ($1, now() - interval '30 seconds', 45.6997, 4.83, 80)`,
    [measured],
  );
  for (const type of ['ARRIVED_AT_LOADING', 'LOADED', 'DEPARTED']) {
    await call('POST', `/trade/transports/${measured}/milestones`, agent, {
      type,
      occurredAt: new Date(Date.now() - 3600_000).toISOString(),
    });
  }
  const trackingPath = `/trade/transports/${measured}/tracking`;
  const timelinePath = `/trade/transports/${measured}/timeline`;
  log(`# pnpm bench:tracking, ${new Date().toISOString()}, ${cpus().length} x ${cpus()[0]?.model}, load ${loadavg()[0]!.toFixed(2)}`);
  log('');
  const genSmall = await generate(db, 0, SMALL - 2880);
  const small = { tracking: await timeReads(call, agent, trackingPath), timeline: await timeReads(call, agent, timelinePath) };
  log(
    `PostgreSQL, ${SMALL.toLocaleString('en')} positions (generated in ${genSmall.toFixed(1)} s): tracking p50 ${small.tracking.toFixed(2)} ms, timeline first page p50 ${small.timeline.toFixed(2)} ms`,
  );
  const genLarge = await generate(db, SMALL - 2880, LARGE - 2880);
  const count = (await db.query<{ n: string }>('select count(*) as n from transport_positions')).rows[0]!.n;
  const large = { tracking: await timeReads(call, agent, trackingPath), timeline: await timeReads(call, agent, timelinePath) };
  log(
    `PostgreSQL, ${Number(count).toLocaleString('en')} positions (generated in ${genLarge.toFixed(1)} s): tracking p50 ${large.tracking.toFixed(2)} ms, timeline first page p50 ${large.timeline.toFixed(2)} ms`,
  );
  log(
    `  ratio large/small: tracking ${(large.tracking / small.tracking).toFixed(2)}x, timeline ${(large.timeline / small.timeline).toFixed(2)}x (aim: within 1.5x)`,
  );
  const pgIngest = await ingest(call, agent, writers.slice(0, CLIENTS), SECONDS);
  log(
    `PostgreSQL ingest over HTTP, ${CLIENTS} clients, batches of 500: ${pgIngest.accepted.toLocaleString('en')} positions in ${pgIngest.elapsed.toFixed(1)} s = ${Math.round(pgIngest.perSecond).toLocaleString('en')} positions/s (aim: 10,000/s)`,
  );
  await db.end();
  await stop(server.child);
} finally {
  await admin.query(`drop database if exists ${dbName} with (force)`);
  await admin.end();
}

// ---------------------------------------------------------------- embedded PGlite
const dir = mkdtempSync(join(tmpdir(), 'tracking-bench-'));
try {
  const server = await startServer({ PGLITE_DATA_DIR: join(dir, 'pglite'), FILE_STORE: 'directory' });
  const { call, login } = client(server.base);
  const [agent, adminToken, supervisor] = [await login('agent'), await login('admin'), await login('supervisor')];
  const writers = await newTransports(call, agent, 4);
  for (const id of writers) {
    await call('POST', `/admin/transports/${id}/actions`, adminToken, { action: 'VALIDATE' });
    await call('POST', `/admin/transports/${id}/actions`, supervisor, { action: 'VALIDATE' });
  }
  const lite = await ingest(call, agent, writers, PGLITE_SECONDS);
  log(
    `Embedded PGlite ingest over HTTP, ${writers.length} clients, batches of 500: ${lite.accepted.toLocaleString('en')} positions in ${lite.elapsed.toFixed(1)} s = ${Math.round(lite.perSecond).toLocaleString('en')} positions/s (aim: 2,000/s)`,
  );
  await stop(server.child);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
writeFileSync(join(serverDir, 'bench/results/tracking.md'), `${lines.join('\n')}\n`);
process.exit(0);
