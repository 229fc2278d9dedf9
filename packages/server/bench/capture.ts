import { Kysely, PostgresDialect, type CompiledQuery } from 'kysely';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import type { Database } from '../src/db/schema.js';
import { type Scenario, USERS } from './scenarios.js';

export interface Replay {
  name: string;
  statements: Array<{ sql: string; parameters: unknown[] }>;
  /** The server's answer to the captured request: the replay answers the same JSON. */
  body: unknown;
}

/**
 * The exact SQL the server issues for each scenario, from Kysely's `log` hook on an in-process
 * copy of the app (the second of two identical requests, so caches are warm as under load), and
 * the JSON it answered.
 */
export async function captureStatements(url: string, list: Scenario[]): Promise<Replay[]> {
  let log: CompiledQuery[] = [];
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 2 }) }),
    log: (event) => {
      if (event.level === 'query') log.push(event.query);
    },
  });
  const config = loadConfig({
    DATABASE_URL: url,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_ANONYMOUS: '1000000000',
    RATE_LIMIT_USER: '1000000000',
    RATE_LIMIT_ADMIN: '1000000000',
  });
  const app = await buildApp(config, { db });
  const tokens = new Map<string, string>();
  for (const [role, username] of Object.entries(USERS)) {
    const res = await app.inject({ method: 'POST', url: '/auth/login', payload: { username, password: 'demo1234' } });
    if (res.statusCode === 200) tokens.set(role, res.json().result.access_token);
  }
  const out: Replay[] = [];
  for (const s of list) {
    if (s.noReplay) continue;
    const request = () =>
      app.inject({
        method: s.method,
        url: s.path,
        headers: s.role === 'anonymous' ? {} : { authorization: `Bearer ${tokens.get(s.role)}` },
        ...(s.body ? { payload: s.body as object } : {}),
      });
    await request();
    log = [];
    const res = await request();
    if (res.statusCode >= 300) throw new Error(`${s.name}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    out.push({ name: s.name, statements: log.map((q) => ({ sql: q.sql, parameters: [...q.parameters] })), body: res.json() });
  }
  await app.close();
  await db.destroy();
  return out;
}
