import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult } from 'kysely';

/*
 * Database faults at the connection seam, on either database: a statement that fails before it
 * runs, or that runs (a COMMIT that commits) and then fails as a lost connection does, or whose
 * answer is held back (its transaction stays open meanwhile) until the test lets it go.
 */

type Rule = { match: (sql: string) => boolean; after: boolean };

/** A statement whose answer is held back: `reached` once it has run, its answer delivered on `release`. */
export interface Hold {
  reached: Promise<void>;
  release(): void;
}

export interface Faults {
  wrapDialect: (dialect: Dialect) => Dialect;
  /** The next statement `match` accepts runs, then fails as if the connection dropped before its answer. */
  failAfter(match: (sql: string) => boolean): void;
  /** The next statement `match` accepts fails before it runs, as if the connection dropped. */
  failBefore(match: (sql: string) => boolean): void;
  /** The next statement `match` accepts runs, then its answer waits until the hold is released. */
  holdAfter(match: (sql: string) => boolean): Hold;
  /** How many armed faults have not fired yet. */
  pending(): number;
}

const lost = () => Object.assign(new Error('Connection terminated unexpectedly'), { injected: true });

export function databaseFaults(): Faults {
  const rules: Rule[] = [];
  const holds: { match: (sql: string) => boolean; reach: () => void; released: Promise<void> }[] = [];
  const fire = (sql: string, after: boolean): boolean => {
    const at = rules.findIndex((r) => r.after === after && r.match(sql));
    if (at < 0) return false;
    rules.splice(at, 1);
    return true;
  };
  const wrapped = new WeakMap<DatabaseConnection, DatabaseConnection>();
  const inner = new WeakMap<DatabaseConnection, DatabaseConnection>();
  const wrap = (connection: DatabaseConnection): DatabaseConnection => {
    let outer = wrapped.get(connection);
    if (!outer) {
      outer = {
        async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
          if (fire(query.sql, false)) throw lost();
          const result = await connection.executeQuery<R>(query);
          if (fire(query.sql, true)) throw lost();
          const held = holds.findIndex((h) => h.match(query.sql));
          if (held >= 0) {
            const [hold] = holds.splice(held, 1);
            hold!.reach();
            await hold!.released;
          }
          return result;
        },
        streamQuery: <R>(query: CompiledQuery, chunkSize?: number) => connection.streamQuery<R>(query, chunkSize),
      };
      wrapped.set(connection, outer);
      inner.set(outer, connection);
    }
    return outer;
  };
  const unwrap = (connection: DatabaseConnection) => inner.get(connection) ?? connection;
  const driver = (d: Driver): Driver => ({
    init: () => d.init(),
    acquireConnection: async () => wrap(await d.acquireConnection()),
    beginTransaction: (c, settings) => d.beginTransaction(unwrap(c), settings),
    commitTransaction: (c) => d.commitTransaction(unwrap(c)),
    rollbackTransaction: (c) => d.rollbackTransaction(unwrap(c)),
    releaseConnection: (c) => d.releaseConnection(unwrap(c)),
    destroy: () => d.destroy(),
  });
  return {
    wrapDialect: (dialect) => ({
      createAdapter: () => dialect.createAdapter(),
      createDriver: () => driver(dialect.createDriver()),
      createQueryCompiler: () => dialect.createQueryCompiler(),
      createIntrospector: (db) => dialect.createIntrospector(db),
    }),
    failAfter: (match) => void rules.push({ match, after: true }),
    failBefore: (match) => void rules.push({ match, after: false }),
    holdAfter: (match) => {
      let reach = () => {};
      let release = () => {};
      const reached = new Promise<void>((resolve) => (reach = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      holds.push({ match, reach, released });
      return { reached, release };
    },
    pending: () => rules.length + holds.length,
  };
}
