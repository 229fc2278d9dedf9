/**
 * What `pnpm bench` and `pnpm bench:compare` share: a dataset's scenario context, the built server
 * started as users start it (its own process), logins, and autocannon in a process of its own.
 */
import { execFileSync, fork, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { connect } from '../src/db/connect.js';
import { RARE_TERM_SQL } from './busy-agent.js';
import { type Context, type Scenario, USERS } from './scenarios.js';

const here = new URL('.', import.meta.url).pathname;
export const serverDir = join(here, '..');

/** A dataset's size and the ids and cursor its scenarios point at. */
export async function datasetContext(url: string): Promise<{ transports: number; context: Context }> {
  const db = connect({ kind: 'postgres', url, poolSize: 1 });
  try {
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
    const rare = await sql.raw<{ term: string }>(RARE_TERM_SQL).execute(db);
    const deepCursor = Buffer.from(
      JSON.stringify({ s: 't.created_at,t.id:desc', k: [middle.rows[0]!.k, String(middle.rows[0]!.id)] }),
    ).toString('base64url');
    return { transports, context: { transportId, deepCursor, topicId: topic.rows[0]?.id ?? 1, rareTerm: rare.rows[0]?.term ?? null } };
  } finally {
    await db.destroy();
  }
}

export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

const children: ChildProcess[] = [];
process.on('exit', stopAll);
/** Stops every process `start` started. */
export function stopAll(): void {
  for (const child of children) child.kill('SIGTERM');
}
/** A Node process of its own, in the server package's directory (`.ts` files through tsx). */
export function start(args: string[], env: Record<string, string>): ChildProcess {
  const loader = args[0]!.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...loader, ...args], {
    cwd: serverDir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  return child;
}
export async function waitFor(base: string): Promise<void> {
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
}

/** The server as users run it (its built JavaScript), on `url`, with rate limits out of the way. */
export async function startServer(url: string): Promise<{ base: string; process: ChildProcess }> {
  const port = await freePort();
  const child = start(['dist/server.js'], {
    DATABASE_URL: url,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    NODE_ENV: 'development',
    SEED_DEMO_DATA: 'false',
    RATE_LIMIT_ANONYMOUS: '1000000000',
    RATE_LIMIT_USER: '1000000000',
    RATE_LIMIT_ADMIN: '1000000000',
  });
  return { base: `http://127.0.0.1:${port}`, process: child };
}

/** An access token per role, from the server's own login (none for a user the dataset lacks). */
export async function login(base: string): Promise<Map<string, string>> {
  const tokens = new Map<string, string>();
  for (const [role, username] of Object.entries(USERS)) {
    const res = await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password: 'demo1234' }),
    });
    if (res.ok) tokens.set(role, ((await res.json()) as { result: { access_token: string } }).result.access_token);
  }
  return tokens;
}

const clockTicks = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100;
  } catch {
    return 100;
  }
})();
/** User + system CPU time a process has used so far, in milliseconds; null where /proc is absent. */
export function cpuMs(pid: number | undefined): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
  } catch {
    return null;
  }
}

export interface Run {
  latency: { p50: number; p99: number; average: number };
  requests: { average: number; total: number };
  /** Seconds the run lasted, measured around it by the load generator. */
  duration: number;
  non2xx: number;
  errors: number;
}
let loader: ChildProcess | null = null;
let nextId = 0;
const pending = new Map<number, { resolve: (run: Run) => void; reject: (error: Error) => void }>();
/** The load generator's process (`loader.mjs`), started on first use. */
function loaderProcess(): ChildProcess {
  if (loader) return loader;
  const child = fork(join(here, 'loader.mjs'), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  child.on('message', (message: { id: number; result?: Run; error?: string }) => {
    const waiting = pending.get(message.id);
    pending.delete(message.id);
    if (message.result) waiting?.resolve(message.result);
    else waiting?.reject(new Error(message.error ?? 'load generator failed'));
  });
  child.on('exit', () => {
    loader = null;
    for (const waiting of pending.values()) waiting.reject(new Error('the load generator exited'));
    pending.clear();
  });
  children.push(child);
  loader = child;
  return child;
}

/**
 * One autocannon run of `duration` seconds (fractions allowed) in the load generator's process;
 * `s` null is a plain GET of `target`.
 */
export function autocannon(
  target: string,
  s: Scenario | null,
  duration: number,
  options: { tokens?: Map<string, string>; connections?: number; paths?: string[]; chainEtag?: boolean } = {},
): Promise<Run> {
  const headers: Record<string, string> = {};
  if (s && s.role !== 'anonymous') headers.authorization = `Bearer ${options.tokens?.get(s.role)}`;
  if (s?.body) headers['content-type'] = 'application/json';
  if (s?.headers) Object.assign(headers, s.headers);
  const run = {
    url: target,
    connections: options.connections ?? 1,
    duration,
    headers,
    // `[<id>]` in a header or the body becomes a new UUID per request (idempotency keys).
    idReplacement: s?.headers !== undefined,
    method: s?.body ? s.method : 'GET',
    ...(s?.body ? { body: JSON.stringify(s.body) } : {}),
    // Per connection (loader.mjs): a path of its own, the ETag of its previous answer as If-Match.
    ...(options.paths ? { paths: options.paths } : {}),
    ...(options.chainEtag ? { chainEtag: true } : {}),
  };
  return new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    loaderProcess().send({ id, options: run });
  });
}

/** The machine line of a results file. */
export function machine(): string {
  const cpu = cpus();
  return `${cpu.length} x ${cpu[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}, ${new Date().toISOString()}`;
}
