import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { Kysely, PostgresDialect } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import { lockDataDir } from './lock.js';
import { preparedName } from './prepared.js';
import { registerReload, reloadableClient } from './reloadable.js';
import type { Database } from './schema.js';

/** Bounds on waiting for PostgreSQL, in milliseconds (see `Config.databaseTimeouts`). */
export interface DatabaseTimeouts {
  connectMs: number;
  statementMs: number;
  queryMs: number;
}

export const DEFAULT_TIMEOUTS: DatabaseTimeouts = { connectMs: 3000, statementMs: 15_000, queryMs: 20_000 };

/** Where the data lives: a PostgreSQL server, or the embedded PGlite (on disk or in memory). */
export type DatabaseTarget =
  | { kind: 'postgres'; url: string; poolSize: number; timeouts?: DatabaseTimeouts }
  | { kind: 'pglite'; dataDir: string /** Start from a dumped data directory (a template). */; loadDataDir?: Blob };

// pg returns int8 (count(*), sums of integers) and numeric as strings; the API speaks numbers.
// Values stay far below 2^53 in this domain (counters, money with two decimals).
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number.parseInt(v, 10));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number.parseFloat(v));

const ignore = () => {};

/** pg's Query, as this file builds it (its declared constructor lacks the callback). */
const NamedQuery = pg.Query as unknown as new (
  text: string,
  values: unknown[],
  callback: (error: Error | null, result: unknown) => void,
) => { name?: string };

/** A prepared statement whose result columns changed under it (DDL while the server runs). */
const stalePlan = (error: Error) =>
  (error as { code?: string }).code === '0A000' && error.message.includes('cached plan must not change result type');

/** What this file uses of pg's connection object (not in its type declarations). */
interface Connection {
  stream: { destroy(): void };
  parsedStatements: Record<string, string>;
  submittedNamedStatements: Record<string, string>;
}

/**
 * A pg client that never takes the process down and never stays stuck:
 * - a connection lost while the client is checked out emits `error` with no pool listener
 *   attached ("Connection terminated unexpectedly"); the query that was running fails anyway,
 *   so the event itself is ignored here;
 * - a query that gets no reply within `query_timeout` (a frozen server) fails with "Query read
 *   timeout" but leaves the connection out of step; its socket is destroyed so the pool drops it.
 * It also prepares the statements that repeat (see prepared.ts): Kysely's `query(text, values)` is
 * sent as `{ name, text, values }`. A prepared statement whose result columns changed under it
 * (DDL while the server runs) fails once with "cached plan must not change result type"; that
 * connection is then dropped, so the next one prepares the statement afresh.
 */
class ResilientClient extends pg.Client {
  constructor(config?: pg.ClientConfig) {
    super(config);
    this.on('error', ignore);
  }

  override query(...args: unknown[]): any {
    const connection = (this as unknown as { connection: Connection }).connection;
    const [text, values] = args;
    const name = args.length === 2 && typeof text === 'string' && Array.isArray(values) ? preparedName(connection, text) : null;
    let result: unknown;
    if (name === null) {
      result = (super.query as (...a: unknown[]) => unknown)(...args);
    } else {
      // A Query made from the text and named afterwards: given a config object, pg copies it
      // property by property (descriptors) on every query.
      result = new Promise((resolve, reject) => {
        const query = new NamedQuery(text as string, values as unknown[], (error: Error | null, res: unknown) =>
          error ? reject(error) : resolve(res),
        );
        query.name = name;
        (super.query as (q: unknown) => unknown)(query);
      });
    }
    if (result instanceof Promise) {
      result.catch((error: unknown) => {
        if (!(error instanceof Error)) return;
        if (error.message === 'Query read timeout' || stalePlan(error)) connection.stream.destroy();
      });
    }
    return result;
  }
}

/**
 * A PGlite instance as the API needs it: the extensions its migrations create (pg_trgm, btree_gin) and numbers
 * parsed as numbers. Every embedded database is opened here (server, sandbox, test templates).
 */
export function openPGlite(options: { dataDir?: string; loadDataDir?: Blob } = {}): PGlite {
  return new PGlite({
    ...options,
    extensions: { btree_gin, pg_trgm },
    parsers: {
      20: (v: string) => Number.parseInt(v, 10),
      1700: (v: string) => Number.parseFloat(v),
    },
  });
}

export function connect(target: DatabaseTarget): Kysely<Database> {
  if (target.kind === 'postgres') {
    const timeouts = target.timeouts ?? DEFAULT_TIMEOUTS;
    const pool = new pg.Pool({
      connectionString: target.url,
      max: target.poolSize,
      Client: ResilientClient as unknown as typeof pg.Client,
      // pg-pool applies this both to opening a connection and to waiting for a pooled one.
      connectionTimeoutMillis: timeouts.connectMs,
      statement_timeout: timeouts.statementMs,
      query_timeout: timeouts.queryMs,
      idle_in_transaction_session_timeout: timeouts.queryMs,
      keepAlive: true,
    });
    // An idle connection killed by the server (restart, failover, a forced drop) is removed from the
    // pool, which opens a new one on demand; unhandled, the event would crash the process.
    pool.on('error', ignore);
    return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  }
  const onDisk = target.dataDir !== 'memory://';
  let unlock = ignore;
  if (onDisk) {
    mkdirSync(target.dataDir, { recursive: true });
    unlock = lockDataDir(target.dataDir);
  }
  const open = () =>
    openPGlite({
      ...(onDisk ? { dataDir: target.dataDir } : {}),
      ...(target.loadDataDir ? { loadDataDir: target.loadDataDir } : {}),
    });
  // An in-memory database opened from a dump can be reloaded from it (the sandbox's reset).
  if (!onDisk && target.loadDataDir) {
    const reloadable = reloadableClient(open);
    const db = new Kysely<Database>({ dialect: new PGliteDialect(reloadable.client) });
    registerReload(db, reloadable);
    return db;
  }
  const db = new Kysely<Database>({ dialect: new PGliteDialect(open()) });
  // Released when the database is closed; `destroy` is what every owner calls.
  const destroy = db.destroy.bind(db);
  db.destroy = async () => {
    try {
      await destroy();
    } finally {
      unlock();
    }
  };
  return db;
}
