// What the out-of-process benchmarks (start-up, uploads) share: a free port, a process's CPU time,
// and a throwaway database for the server they start.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const ticks = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** A TCP port free on 127.0.0.1 at the time of the call. */
export const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/** user + system CPU seconds of a running process, from /proc. */
export function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticks;
}

/**
 * The server's environment on a database of its own: a new database on the PostgreSQL server of
 * DATABASE_URL when it is set, else a new embedded PGlite directory. `cleanup` drops it.
 */
export async function throwawayDatabase(env, prefix) {
  if (process.env.DATABASE_URL) {
    const name = `${prefix}_${process.pid}`;
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    await admin.query(`create database ${name}`);
    const url = new URL(process.env.DATABASE_URL);
    url.pathname = `/${name}`;
    return {
      env: { ...env, DATABASE_URL: url.toString() },
      target: 'PostgreSQL',
      cleanup: async () => {
        await admin.query(`drop database if exists ${name} with (force)`);
        await admin.end();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), `${prefix.replaceAll('_', '-')}-`));
  const { DATABASE_URL: _, ...rest } = env;
  return {
    env: { ...rest, PGLITE_DATA_DIR: join(dir, 'pglite') },
    target: 'embedded PGlite',
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
}
