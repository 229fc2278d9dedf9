import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { Kysely, PostgresDialect } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import type { Database } from './schema.js';

/** Where the data lives: a PostgreSQL server, or the embedded PGlite (on disk or in memory). */
export type DatabaseTarget =
  | { kind: 'postgres'; url: string; poolSize: number }
  | { kind: 'pglite'; dataDir: string; /** Start from a dumped data directory (a template). */ loadDataDir?: Blob };

// pg returns int8 (count(*), sums of integers) and numeric as strings; the API speaks numbers.
// Values stay far below 2^53 in this domain (counters, money with two decimals).
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number.parseInt(v, 10));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number.parseFloat(v));

export function connect(target: DatabaseTarget): Kysely<Database> {
  if (target.kind === 'postgres') {
    const pool = new pg.Pool({ connectionString: target.url, max: target.poolSize });
    // An idle connection killed by the server (restart, failover, a forced drop) is removed from the
    // pool, which opens a new one on demand; unhandled, the event would crash the process.
    pool.on('error', () => {});
    return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  }
  if (target.dataDir !== 'memory://') mkdirSync(target.dataDir, { recursive: true });
  const pglite = new PGlite({
    ...(target.dataDir === 'memory://' ? {} : { dataDir: target.dataDir }),
    ...(target.loadDataDir ? { loadDataDir: target.loadDataDir } : {}),
    extensions: { pg_trgm },
    parsers: {
      20: (v: string) => Number.parseInt(v, 10),
      1700: (v: string) => Number.parseFloat(v),
    },
  });
  return new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
}
