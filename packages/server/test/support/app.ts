import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance, HTTPMethods, InjectOptions, LightMyRequestResponse } from 'fastify';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { buildApp } from '../../src/app.js';
import { forgetReplacedDatabase } from '../../src/modules/sandbox/handlers.js';
import { testConfig, type Config } from '../../src/config.js';
import { connect } from '../../src/db/connect.js';
import type { Database } from '../../src/db/schema.js';
import type { ErrorDetail } from '../../src/contract.js';
import type { OperationId, RouteTypes } from '../../src/http/handlers.js';
import type { operations } from '@transport-ops/contract';
import { operationById, responseValidator } from './contract.js';
import { recordCovered } from './coverage.js';
import { withDatabase } from './global-setup.js';

export const DEMO_PASSWORD = 'demo1234';
export type DemoUser = 'admin' | 'supervisor' | 'manager' | 'agent' | 'agent2';

/** A fresh copy of the seeded database: PGlite by default, PostgreSQL when DATABASE_URL is set. */
export async function freshDatabase(): Promise<{ db: Kysely<Database>; drop: () => Promise<void> }> {
  const url = process.env.DATABASE_URL;
  const template = inject('postgresTemplate');
  if (url && template) {
    const name = `transport_ops_test_${randomBytes(6).toString('hex')}`;
    const admin = connect({ kind: 'postgres', url, poolSize: 1 });
    await sql`create database ${sql.id(name)} template ${sql.id(template)}`.execute(admin);
    const db = connect({ kind: 'postgres', url: withDatabase(url, name), poolSize: 5 });
    return {
      db,
      drop: async () => {
        await db.destroy();
        await sql`drop database if exists ${sql.id(name)} with (force)`.execute(admin);
        await admin.destroy();
      },
    };
  }
  const db = connect({ kind: 'pglite', dataDir: 'memory://', loadDataDir: new Blob([readFileSync(inject('pgliteTemplate'))]) });
  return { db, drop: () => db.destroy() };
}

type Responses<K extends OperationId> = operations[K]['responses'];
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type SuccessOf<K extends OperationId> = JsonOf<Responses<K>[Extract<keyof Responses<K>, 200 | 201 | 202>]>;
type AllKeys<U> = U extends unknown ? keyof U : never;
/** Every field of every error detail, optional: a test reads the fields of the code it expects. */
type MergedDetail = { [P in AllKeys<ErrorDetail>]?: ErrorDetail extends infer D ? (D extends { [Q in P]?: infer V } ? V : never) : never };
/** Path and query values may also be strings (a test of a malformed value); names come from the contract. */
type Loose<T> = { [P in keyof T]: T[P] | string };
type IsWide<K extends OperationId> = OperationId extends K ? true : false;

/**
 * A request typed from the contract: renaming a parameter or a body field fails `tsc`. A body the
 * contract refuses on purpose (to test a 400) goes in `payload`.
 */
export interface CallOptions<K extends OperationId = OperationId> {
  params?: IsWide<K> extends true ? Record<string, string | number> : Loose<RouteTypes<K>['Params']>;
  query?: IsWide<K> extends true ? Record<string, string | number | boolean | undefined> : Partial<Loose<RouteTypes<K>['Querystring']>>;
  body?: IsWide<K> extends true ? unknown : RouteTypes<K>['Body'];
  token?: string | null;
  headers?: Record<string, string>;
  payload?: InjectOptions['payload'];
  /** The client address the request comes from (127.0.0.1 by default). */
  remoteAddress?: string;
}

/** The JSON body of an answer: the operation's success envelope, with `errors` readable as an error detail. */
export type ResponseBody<K extends OperationId> =
  IsWide<K> extends true
    ? any
    : [SuccessOf<K>] extends [never]
      ? Buffer & { success: false; message: string; errors: MergedDetail } // a file, or a JSON error envelope
      : Omit<SuccessOf<K>, 'errors' | 'except'> & { errors: MergedDetail; except?: string | null };

/** The `errors` of an answer that lists messages (validation, authentication), checked to be a list. */
export function errorMessages(body: { errors: unknown }): string[] {
  expect(Array.isArray(body.errors), `errors is not a list: ${JSON.stringify(body.errors)}`).toBe(true);
  return body.errors as string[];
}

export interface CallResult<K extends OperationId = OperationId> {
  status: number;
  body: ResponseBody<K>;
  headers: LightMyRequestResponse['headers'];
  raw: LightMyRequestResponse;
}

export interface TestApp {
  app: FastifyInstance;
  db: Kysely<Database>;
  /** Calls an operation by its operationId and checks the response against the contract. */
  call<K extends OperationId>(operationId: K, options?: CallOptions<K>): Promise<CallResult<K>>;
  /** An access token of a demo user (logged in once per app). */
  token(user: DemoUser): Promise<string>;
  close(): Promise<void>;
}

/**
 * Apps are expensive to build (the contract's 178 operations are compiled), databases are cheap to
 * copy. So each test worker builds one app per distinct configuration and keeps it for every test
 * file it runs (vitest runs the server project with `isolate: false`); each `createTestApp()` gives the
 * file a fresh copy of the seeded database, switched in under the shared app, and clears the app's
 * in-process state that could remember another copy (trusted sessions, caches).
 */
interface SharedApp {
  app: FastifyInstance;
  use(db: Kysely<Database>): Promise<void>;
}
const sharedApps = new Map<string, Promise<SharedApp>>();

/** A Kysely that forwards every call to the database currently switched in. */
function switchableDatabase(initial: Kysely<Database>) {
  let current = initial;
  const db = new Proxy(initial, {
    get(_target, property) {
      const value = Reflect.get(current, property, current) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(current) : value;
    },
  });
  return {
    db,
    use: (next: Kysely<Database>) => {
      current = next;
    },
  };
}

async function buildShared(overrides: Partial<Config>, first: Kysely<Database>): Promise<SharedApp> {
  const switchable = switchableDatabase(first);
  // With REDIS_URL (CI's PostgreSQL run), limits, caches and revocations go through Redis, under a
  // prefix of this app's own so that workers running side by side never share counters.
  const redis = process.env.REDIS_URL ? { redisUrl: process.env.REDIS_URL, redisPrefix: `test:${randomBytes(6).toString('hex')}:` } : {};
  // Quotas are out of reach here so that no test trips them; the rate-limit tests set their own.
  const rateLimit = { anonymous: 1e9, user: 1e9, admin: 1e9, windowMs: 3600_000 };
  const config = testConfig({ seedDemoData: false, rateLimit, publicBaseUrl: 'https://api.transport-ops.example', ...redis, ...overrides });
  const app = await buildApp(config, { db: switchable.db });
  await app.ready();
  return {
    app,
    async use(db) {
      switchable.use(db);
      await forgetReplacedDatabase(app);
    },
  };
}

/**
 * A test file's app on a fresh copy of the seeded database. Without overrides the worker's shared app
 * is used; a file that needs another configuration (rate limits, Redis on or off) gets an app of its
 * own, closed with the file.
 */
export async function createTestApp(overrides: Partial<Config> = {}): Promise<TestApp> {
  const { db, drop } = await freshDatabase();
  const dedicated = Object.keys(overrides).length > 0;
  let shared: SharedApp;
  if (dedicated) {
    shared = await buildShared(overrides, db);
  } else {
    let pending = sharedApps.get('default');
    if (!pending) {
      pending = buildShared({}, db);
      sharedApps.set('default', pending);
    }
    shared = await pending;
    await shared.use(db);
  }
  const { app } = shared;
  const tokens = new Map<string, Promise<string>>();

  async function call<K extends OperationId>(operationId: K, options: CallOptions<K> = {}): Promise<CallResult<K>> {
    const info = operationById.get(operationId);
    if (!info) throw new Error(`unknown operation ${operationId}`);
    const url = info.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = (options.params as Record<string, string | number> | undefined)?.[name];
      if (value === undefined) throw new Error(`${operationId}: missing path parameter ${name}`);
      return encodeURIComponent(String(value));
    });
    const query = Object.fromEntries(
      Object.entries(options.query ?? {})
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, String(v)]),
    );
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const res = await app.inject({
      method: info.method as HTTPMethods,
      url,
      query,
      headers,
      ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
      ...(options.payload !== undefined
        ? { payload: options.payload }
        : options.body !== undefined
          ? { payload: options.body as object }
          : {}),
    });
    const contentType = String(res.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim();
    const json = contentType === 'application/json';
    const body = json ? res.json() : res.rawPayload;
    const validate = responseValidator(operationId, res.statusCode, contentType);
    expect(validate, `${operationId} answered ${res.statusCode} ${contentType}, which the contract does not declare`).not.toBeNull();
    if (json) {
      const valid = validate!(body);
      expect(
        valid,
        `${operationId} ${res.statusCode} response breaks the contract: ${JSON.stringify(validate!.errors)}\n${JSON.stringify(body).slice(0, 800)}`,
      ).toBe(true);
    }
    if (contentType === '')
      expect(res.rawPayload.length, `${operationId} answered ${res.statusCode} with a body but no content type`).toBe(0);
    if (res.statusCode < 300) recordCovered(operationId);
    return { status: res.statusCode, body: body as ResponseBody<K>, headers: res.headers, raw: res };
  }

  async function token(user: DemoUser): Promise<string> {
    if (!tokens.has(user)) {
      tokens.set(
        user,
        call('login', { body: { username: user, password: DEMO_PASSWORD } }).then((r) => {
          if (r.status !== 200) throw new Error(`login of ${user} failed: ${JSON.stringify(r.body)}`);
          return r.body.result.access_token;
        }),
      );
    }
    return tokens.get(user)!;
  }

  return {
    app,
    db,
    call,
    token,
    async close() {
      if (dedicated) await app.close();
      await drop();
    },
  };
}

/**
 * A test file's (or a describe block's) app, built before its tests on a fresh copy of the seeded
 * database and closed after them: `const t = useTestApp();` stands for the `let t` / `beforeAll` /
 * `afterAll` trio. The object returned forwards to the app of the running tests (using it before
 * the hooks have run throws). `t.token(user)` logs a demo account in on its first use and keeps
 * its token for the rest of the file. `overrides` as for `createTestApp`; a function is called
 * when the app is built (for values a hook registered before computes).
 */
export function useTestApp(overrides: Partial<Config> | (() => Partial<Config>) = {}): TestApp {
  let current: TestApp | undefined;
  const built = (): TestApp => {
    if (!current) throw new Error('the test app is built in beforeAll: use it in a test or a hook');
    return current;
  };
  beforeAll(async () => {
    current = await createTestApp(typeof overrides === 'function' ? overrides() : overrides);
  });
  afterAll(async () => {
    const closing = current;
    current = undefined;
    await closing?.close();
  });
  return {
    get app() {
      return built().app;
    },
    get db() {
      return built().db;
    },
    call: <K extends OperationId>(operationId: K, options?: CallOptions<K>) => built().call(operationId, options),
    token: (user: DemoUser) => built().token(user),
    close: async () => {
      const closing = current;
      current = undefined;
      await closing?.close();
    },
  };
}
