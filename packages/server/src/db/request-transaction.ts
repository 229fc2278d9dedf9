import { AsyncLocalStorage } from 'node:async_hooks';
import { CompiledQuery, type DatabaseConnection, type Dialect, type Driver, type Kysely, type TransactionSettings } from 'kysely';

/*
 * A request's own transaction: every statement a piece of work issues, through any Kysely
 * instance of this process, runs in one transaction on one connection, committed or rolled back
 * by whoever opened it. Transactions the work opens itself (`db.transaction()`) become savepoints
 * of it. So an idempotent write stores its answer, and a conditional write compares its ETag, in
 * the very transaction that writes its rows: they commit together or not at all.
 *
 * The transaction begins with the first statement (a request that reads nothing costs nothing)
 * and the connection is taken from the pool then, so on the embedded database (one connection)
 * other requests wait only while it is open.
 */

interface Scope {
  driver: Driver | null;
  connection: DatabaseConnection | null;
  /** The connection taken and the transaction begun (shared by statements issued at once). */
  opening: Promise<DatabaseConnection> | null;
  /** A transaction is open on `connection`. */
  open: boolean;
  /** Savepoints opened by nested transactions and not yet released. */
  depth: number;
  /** The scope has ended: later statements (a timer started by the work) use the pool again. */
  done: boolean;
}

const scopes = new AsyncLocalStorage<Scope>();

const raw = (text: string) => CompiledQuery.raw(text);

/** The scope a statement issued now belongs to, when it is still running. */
function active(): Scope | undefined {
  const scope = scopes.getStore();
  return scope && !scope.done ? scope : undefined;
}

class RequestScopedDriver implements Driver {
  constructor(private readonly inner: Driver) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const scope = active();
    if (!scope) return this.inner.acquireConnection();
    scope.opening ??= this.open(scope);
    return scope.opening;
  }

  private async open(scope: Scope): Promise<DatabaseConnection> {
    scope.driver = this.inner;
    const connection = await this.inner.acquireConnection();
    scope.connection = connection;
    await connection.executeQuery(raw('begin'));
    scope.open = true;
    return connection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const scope = active();
    if (scope?.connection !== connection) return this.inner.beginTransaction(connection, settings);
    scope.depth++;
    await connection.executeQuery(raw(`savepoint request_${scope.depth}`));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const scope = active();
    if (scope?.connection !== connection) return this.inner.commitTransaction(connection);
    await connection.executeQuery(raw(`release savepoint request_${scope.depth}`));
    scope.depth--;
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const scope = active();
    if (scope?.connection !== connection) return this.inner.rollbackTransaction(connection);
    const depth = scope.depth--;
    await connection.executeQuery(raw(`rollback to savepoint request_${depth}`));
    await connection.executeQuery(raw(`release savepoint request_${depth}`));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    if (active()?.connection === connection) return;
    return this.inner.releaseConnection(connection);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/** `dialect` with request transactions (every Kysely instance of the server is built with it). */
export function requestScoped(dialect: Dialect): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => new RequestScopedDriver(dialect.createDriver()),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}

/** How a request transaction ends. */
export interface RequestTransaction {
  /** Commits what the work wrote (nothing when it issued no statement). */
  commit(): Promise<void>;
  /** Rolls it back (idempotent; never throws: a lost connection rolls back by itself). */
  rollback(): Promise<void>;
  /** Runs `fn` inside the transaction (statements after the work, before commit). */
  run<T>(fn: () => Promise<T>): Promise<T>;
}

async function end(scope: Scope, statement: 'commit' | 'rollback'): Promise<void> {
  if (scope.done) return;
  scope.done = true;
  // A statement still opening the transaction settles first (it fails or is part of it).
  await scope.opening?.catch(() => undefined);
  const { connection, driver } = scope;
  if (!connection || !driver) return;
  try {
    if (scope.open) await connection.executeQuery(raw(statement));
  } catch (error) {
    // A COMMIT that failed on a connection still alive leaves no transaction open behind it
    // (PGlite's one connection serves every later request).
    if (statement === 'commit') await connection.executeQuery(raw('rollback')).catch(() => undefined);
    throw error;
  } finally {
    // Handed back even when COMMIT or ROLLBACK failed: pg's pool drops a connection that
    // errored, and PGlite's single connection must be released or every request waits.
    await driver.releaseConnection(connection).catch(() => undefined);
  }
}

/**
 * Runs `work` in a request transaction and hands back its result with the transaction still open:
 * the caller adds its last statements through `tx.run`, then commits or rolls back. When `work`
 * throws, the transaction is rolled back before the error goes on.
 */
export async function inRequestTransaction<T>(work: () => Promise<T>): Promise<{ value: T; tx: RequestTransaction }> {
  const scope: Scope = { driver: null, connection: null, opening: null, open: false, depth: 0, done: false };
  const tx: RequestTransaction = {
    commit: () => end(scope, 'commit'),
    rollback: () => end(scope, 'rollback').catch(() => undefined),
    run: (fn) => scopes.run(scope, fn),
  };
  try {
    const value = await scopes.run(scope, work);
    return { value, tx };
  } catch (error) {
    await tx.rollback();
    throw error;
  }
}

/**
 * Runs `fn` as one atomic unit of writes. Inside a request transaction it runs in that
 * transaction directly: no savepoint (two statements fewer), because a failure of `fn` fails the
 * request and rolls the whole request transaction back. Outside one, `fn` runs in a transaction
 * of its own. For callers that let every error of `fn` propagate: one that catches an error of
 * `fn` and goes on needs `db.transaction()` (a savepoint inside a request transaction).
 */
export function atomically<DB, T>(db: Kysely<DB>, fn: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
  return active() ? fn(db) : db.transaction().execute(fn);
}
