import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * Real processes for the failure-mode tests: a private PostgreSQL cluster, a private Redis and
 * the API server itself, each on a random port of 127.0.0.1, each stopped by `stop()`.
 */

const serverRoot = join(dirname(fileURLToPath(import.meta.url)), '../..');

export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An error that stops `until` at once (the awaited process died). */
export class Fatal extends Error {}

/** Retries `probe` until it returns true (at most `seconds`); a failing probe counts as false. */
export async function until(what: string, probe: () => Promise<boolean>, seconds = 90): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    const done = await probe().catch((error: unknown) => {
      if (error instanceof Fatal) throw error;
      return false;
    });
    if (done) return;
    await sleep(200);
  }
  throw new Error(`gave up waiting: ${what}`);
}

const pgBin = (() => {
  const base = '/usr/lib/postgresql';
  const version = existsSync(base) ? readdirSync(base).sort((a, b) => Number(b) - Number(a))[0] : undefined;
  const dir = version ? join(base, version, 'bin') : undefined;
  return dir && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'postgres')) ? dir : undefined;
})();
const redisBin = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((p) => existsSync(p));

/** Why a failure-mode test cannot run here, or null. */
export const missing = {
  postgres: pgBin ? null : 'PostgreSQL server binaries (/usr/lib/postgresql/*/bin/initdb, postgres) are not installed',
  redis: redisBin ? null : 'redis-server is not installed',
};

// PostgreSQL refuses to run as root: as root, run it as the `postgres` system user.
const asRoot = process.getuid?.() === 0;
function pgCommand(bin: string, args: string[]): [string, string[]] {
  return asRoot ? ['runuser', ['-u', 'postgres', '--', join(pgBin!, bin), ...args]] : [join(pgBin!, bin), args];
}

export interface Cluster {
  url: string;
  /** SIGKILL to the postmaster and every backend: a crash. */
  kill(): Promise<void>;
  /** SIGSTOP / SIGCONT to every process of the cluster: a frozen server. */
  freeze(): void;
  thaw(): void;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function startCluster(): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'transport-ops-pg-'));
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  const [initdb, initArgs] = pgCommand('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  execFileSync(initdb, initArgs, { stdio: 'ignore' });
  const port = await freePort();
  let child: ChildProcess | undefined;
  const pids = (): number[] => {
    if (!existsSync(join(data, 'postmaster.pid'))) return [];
    const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(postmaster)])
      .toString()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
    return [postmaster, ...children];
  };
  const signal = (sig: NodeJS.Signals) => {
    for (const pid of pids()) {
      try {
        process.kill(pid, sig);
      } catch {
        // already gone
      }
    }
  };
  const start = async () => {
    const [cmd, args] = pgCommand('postgres', [
      '-D',
      data,
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
    ]);
    child = spawn(cmd, args, { stdio: 'ignore' });
    await until('PostgreSQL accepting connections', async () => {
      const [ready, readyArgs] = pgCommand('pg_isready', ['-h', '127.0.0.1', '-p', String(port)]);
      execFileSync(ready, readyArgs, { stdio: 'ignore' });
      return true;
    });
  };
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async kill() {
      signal('SIGKILL');
      await until('PostgreSQL gone', async () => child?.exitCode !== null || child.signalCode !== null, 30);
    },
    freeze: () => signal('SIGSTOP'),
    thaw: () => signal('SIGCONT'),
    start,
    async stop() {
      signal('SIGCONT');
      signal('SIGKILL');
      await sleep(300);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface RedisServer {
  url: string;
  kill(): Promise<void>;
  /** SIGSTOP / SIGCONT: a frozen server (its connections stay open, nothing answers). */
  freeze(): void;
  thaw(): void;
  start(): Promise<void>;
}

export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(redisBin!, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    await until('Redis listening', async () => {
      execFileSync('redis-cli', ['-p', String(port), 'ping'], { stdio: 'ignore' });
      return true;
    });
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    async kill() {
      child?.kill('SIGKILL');
      await until('Redis gone', async () => child?.exitCode !== null || child.signalCode !== null, 30);
    },
    freeze: () => void child?.kill('SIGSTOP'),
    thaw: () => void child?.kill('SIGCONT'),
    start,
  };
}

export interface ApiServer {
  base: string;
  process: ChildProcess;
  /** A JSON request; `status`, `headers` and the parsed envelope. */
  request(path: string, init?: RequestInit & { timeoutMs?: number }): Promise<{ status: number; headers: Headers; body: any }>;
  login(username?: string): Promise<string>;
  stop(): Promise<void>;
}

/** The API server as it runs in production: the built JavaScript when present, else through tsx. */
export async function startApi(env: Record<string, string>, options: { stdout?: (line: string) => void } = {}): Promise<ApiServer> {
  const port = await freePort();
  const built = join(serverRoot, 'dist/server.js');
  const args = existsSync(built) ? [built] : ['--import', 'tsx', join(serverRoot, 'src/server.ts')];
  const dataDir = mkdtempSync(join(tmpdir(), 'transport-ops-api-'));
  const child = spawn(process.execPath, args, {
    cwd: serverRoot, // where `--import tsx` resolves; the data lives in dataDir
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      LOG_LEVEL: 'error',
      HOST: '127.0.0.1',
      PORT: String(port),
      PGLITE_DATA_DIR: join(dataDir, 'pglite'),
      ...env,
    },
    stdio: ['ignore', options.stdout ? 'pipe' : 'ignore', 'pipe'],
  });
  if (options.stdout) {
    const onLine = options.stdout;
    let partial = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) onLine(line);
    });
  }
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const base = `http://127.0.0.1:${port}`;
  const api: ApiServer = {
    base,
    process: child,
    async request(path, init = {}) {
      const res = await fetch(base + path, {
        ...init,
        headers: { 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
        signal: AbortSignal.timeout(init.timeoutMs ?? 60_000),
      });
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
    },
    async login(username = 'admin') {
      const res = await api.request('/auth/login', { method: 'POST', body: JSON.stringify({ username, password: 'demo1234' }) });
      if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.result.access_token as string;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await until('API stopped', async () => child.exitCode !== null || child.signalCode !== null, 30).catch(() => child.kill('SIGKILL'));
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  await until(
    'API ready',
    async () => {
      if (child.exitCode !== null) throw new Fatal(`the API exited with ${child.exitCode}: ${stderr}`);
      return (await api.request('/ready', { timeoutMs: 5000 })).status === 200;
    },
    180,
  );
  return api;
}
