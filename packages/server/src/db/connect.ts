import { mkdirSync } from 'node:fs';
import type { Socket } from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { type Dialect, Kysely, type KyselyConfig, type LogEvent, PostgresDialect } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import type { Config } from '../config.js';
import { lockDataDir } from './lock.js';
import { observeQuery } from '../lib/metrics.js';
import { parseTimestamptz } from '../lib/time.js';
import { traceQuery } from '../lib/tracing.js';
import { arrayRowsQuery, type FieldDescription, rowsToObjects } from '../patches/pg-row-builder.js';
import { preparedName } from './prepared.js';
import { registerReload, reloadableClient } from './reloadable.js';
import { requestScoped } from './request-transaction.js';
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

/** The database the configuration names. */
export function databaseTarget(config: Config): DatabaseTarget {
  return config.databaseUrl
    ? { kind: 'postgres', url: config.databaseUrl, poolSize: config.databasePoolSize, timeouts: config.databaseTimeouts }
    : { kind: 'pglite', dataDir: config.pgliteDataDir };
}

// pg returns int8 (count(*), sums of integers) and numeric as strings; the API speaks numbers.
// Values stay far below 2^53 in this domain (counters, money with two decimals).
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number.parseInt(v, 10));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number.parseFloat(v));
// Every timestamp column is a timestamptz: read by a parser without regular expressions (pg's
// own, postgres-date, runs three per value), with pg's parser for the texts it does not take.
const pgTimestamptz = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ);
pg.types.setTypeParser(pg.types.builtins.TIMESTAMPTZ, (v) => parseTimestamptz(v) ?? pgTimestamptz(v));

const ignore = () => {};

/** pg's client options, and how long a query may hear nothing from the server (0: no limit). */
interface ResilientConfig extends pg.ClientConfig {
  readTimeoutMs?: number;
}

/** A prepared statement whose result columns changed under it (DDL while the server runs). */
const stalePlan = (error: Error) =>
  (error as { code?: string }).code === '0A000' && error.message.includes('cached plan must not change result type');

/**
 * A pg client that never takes the process down and never stays stuck:
 * - a connection lost while the client is checked out emits `error` with no pool listener
 *   attached ("Connection terminated unexpectedly"); the query that was running fails anyway,
 *   so the event itself is ignored here;
 * - a query that hears nothing from the server for `readTimeoutMs` (a frozen server) fails with
 *   "Query read timeout": the connection's socket is destroyed, so the pool drops it. This is the
 *   socket's own inactivity timer (one per connection, re-armed by every byte in or out), not pg's
 *   `query_timeout`, which arms a timer per query whose closure holds the query and its rows: those
 *   timers carried the rows of every answer into the old generation of the heap, each young
 *   collection copying them and a full one every few seconds (`--trace-gc-nvp` on a page of
 *   tutorials under load: 1.3 MB promoted per young collection with them, 0.8 MB without, 4 kB
 *   once object literals no longer start with a spread either, see lint/leading-spread.grit).
 * It also prepares the statements that repeat (see prepared.ts): Kysely's `query(text, values)` is
 * sent as `{ name, text, values }`. A prepared statement whose result columns changed under it
 * (DDL while the server runs) fails once with "cached plan must not change result type"; that
 * connection is then dropped, so the next one prepares the statement afresh.
 * Every `query(text, values)` is built as a pg Query with its callback given to the constructor:
 * pg's own promise form sets the callback afterwards, and its queries' rows, too, were promoted
 * (how the query is built, named and given array rows: patches/pg-row-builder.ts).
 * The client counts its own queries in flight and the statements it has named (pg's `_queryQueue`
 * and its connection's statement maps are internals).
 */
class ResilientClient extends pg.Client {
  /** Queries sent and not yet answered (the read timeout applies only while there are some). */
  private inFlight = 0;
  /** Statement names this connection was asked to prepare (see prepared.ts). */
  private readonly named = new Set<string>();
  private readonly settle = () => {
    this.inFlight--;
  };

  constructor(config?: ResilientConfig) {
    super(config);
    this.on('error', ignore);
    const ms = config?.readTimeoutMs ?? 0;
    if (ms > 0) this.once('connect', () => this.watchReads(ms));
  }

  /** Destroys the socket when a query has waited `ms` without a byte from the server (see above). */
  private watchReads(ms: number): void {
    const stream = this.connection.stream as Socket;
    stream.setTimeout(ms);
    // The timer also runs out while the connection idles in the pool: nothing is waiting then.
    stream.on('timeout', () => {
      if (this.inFlight > 0) stream.destroy(new Error('Query read timeout'));
    });
  }

  override query(...args: unknown[]): any {
    const [text, values] = args;
    if (!(args.length === 2 && typeof text === 'string' && Array.isArray(values))) return this.other(args);
    const name = preparedName(this.named, text);
    if (name !== null) this.named.add(name);
    // One statement per query (extended protocol: named, or with parameters): its rows come as
    // arrays and are made into objects by the statement's compiled builder (see patches/pg-row-builder.ts).
    const single = name !== null || values.length > 0;
    this.inFlight++;
    const result = new Promise((resolve, reject) => {
      const query = arrayRowsQuery(text, values, name, single, (error, res) => {
        this.settle();
        if (error) return reject(error);
        if (single) rowsToObjects(text, res as { rows: unknown[]; fields: FieldDescription[] });
        resolve(res);
      });
      (super.query as (q: pg.Query) => void)(query);
    });
    result.catch((error: unknown) => {
      if (error instanceof Error && stalePlan(error)) this.connection.stream.destroy();
    });
    return result;
  }

  /** Any other form of `query` (Kysely sends none): counted in flight while its promise or callback is pending. */
  private other(args: unknown[]): unknown {
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function') {
      this.inFlight++;
      args[last] = (...out: unknown[]) => {
        this.settle();
        return (callback as (...a: unknown[]) => unknown)(...out);
      };
    }
    const result = (super.query as (...a: unknown[]) => unknown)(...args);
    if (typeof callback !== 'function' && result instanceof Promise) {
      this.inFlight++;
      result.then(this.settle, this.settle);
    }
    return result;
  }
}

/**
 * A PGlite instance as the API needs it: the extensions its migrations create (pg_trgm, btree_gin) and numbers
 * parsed as numbers. Every embedded database is opened here (server, sandbox, test templates).
 */
export function openPGlite(options: { dataDir?: string; loadDataDir?: Blob } = {}): PGlite {
  return new PGlite(
    Object.assign({}, options, {
      extensions: { btree_gin, pg_trgm },
      parsers: {
        20: (v: string) => Number.parseInt(v, 10),
        1700: (v: string) => Number.parseFloat(v),
      },
    }),
  );
}

/**
 * Every query's duration goes to `db_query_duration_seconds` (Kysely times it only when a logger is
 * set), and to a span when tracing is on: on PostgreSQL and on the embedded PGlite alike (pg's own
 * instrumentation would see neither PGlite nor pg inside the bundled server).
 */
const timed = (dialect: KyselyConfig['dialect']): KyselyConfig => ({
  dialect,
  log: (event: LogEvent) => {
    observeQuery(event.queryDurationMillis, event.level === 'error');
    traceQuery(event.query.sql, event.queryDurationMillis, event.level === 'error' ? event.error : undefined);
  },
});

/**
 * The pg pool of a database `connect` opened on PostgreSQL (its gauges are read at scrape time).
 * Kept as a property of the handle, so that a proxy forwarding to it (the tests' switchable
 * database) finds it too.
 */
const POOL = Symbol('pg pool');
export const poolOf = (db: Kysely<any>): pg.Pool | undefined => (db as unknown as { [POOL]?: pg.Pool })[POOL];

/** Options of `connect`: `wrapDialect` puts a layer under the request transactions (tests inject failures there). */
export interface ConnectOptions {
  wrapDialect?: (dialect: Dialect) => Dialect;
}

export function connect(target: DatabaseTarget, options: ConnectOptions = {}): Kysely<Database> {
  const scoped = (dialect: Dialect) => requestScoped(options.wrapDialect ? options.wrapDialect(dialect) : dialect);
  if (target.kind === 'postgres') {
    const timeouts = target.timeouts ?? DEFAULT_TIMEOUTS;
    const options: pg.PoolConfig & ResilientConfig = {
      connectionString: target.url,
      max: target.poolSize,
      Client: ResilientClient as unknown as typeof pg.Client,
      // pg-pool applies this both to opening a connection and to waiting for a pooled one.
      connectionTimeoutMillis: timeouts.connectMs,
      statement_timeout: timeouts.statementMs,
      readTimeoutMs: timeouts.queryMs,
      idle_in_transaction_session_timeout: timeouts.queryMs,
      keepAlive: true,
    };
    const pool = new pg.Pool(options);
    // An idle connection killed by the server (restart, failover, a forced drop) is removed from the
    // pool, which opens a new one on demand; unhandled, the event would crash the process.
    pool.on('error', ignore);
    const db = new Kysely<Database>(timed(scoped(new PostgresDialect({ pool }))));
    Object.defineProperty(db, POOL, { value: pool });
    return db;
  }
  const onDisk = target.dataDir !== 'memory://';
  let unlock = ignore;
  if (onDisk) {
    mkdirSync(target.dataDir, { recursive: true });
    unlock = lockDataDir(target.dataDir);
  }
  const open = () =>
    openPGlite(Object.assign({}, onDisk ? { dataDir: target.dataDir } : {}, target.loadDataDir ? { loadDataDir: target.loadDataDir } : {}));
  // An in-memory database opened from a dump can be reloaded from it (the sandbox's reset).
  if (!onDisk && target.loadDataDir) {
    const reloadable = reloadableClient(open);
    const db = new Kysely<Database>(timed(scoped(new PGliteDialect(reloadable.client))));
    registerReload(db, reloadable);
    return db;
  }
  const db = new Kysely<Database>(timed(scoped(new PGliteDialect(open()))));
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
