/**
 * `pnpm bench`: throughput and latency of an authenticated list operation (GET /trade/transports as
 * the supervisor) through the whole server, against a bare Fastify route that runs the same SQL on
 * the same data with the same response schema but no authentication, rate limit or glue. Prints
 * both and their throughput ratio (target: at least 0.9).
 *
 * Uses the embedded database in memory, or DATABASE_URL when set. BENCH_SECONDS (default 10) and
 * BENCH_CONNECTIONS (default 10) tune the runs.
 */
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { loadContract } from '../src/contract.js';
import { connect } from '../src/db/connect.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { seedDemoData } from '../src/db/seed.js';
import { fetchPage, pageMeta } from '../src/lib/paging.js';
import { toListItem } from '../src/modules/transports/mappers.js';
import { listQuery } from '../src/modules/transports/repository.js';
import { databaseTarget } from '../src/plugins/database.js';
import type { AuthContext } from '../src/plugins/security.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);

const config = {
  ...loadConfig({ ...process.env, LOG_LEVEL: 'silent', PGLITE_DATA_DIR: process.env.DATABASE_URL ? '.data/unused' : 'memory://' }),
  rateLimit: { anonymous: 1e9, user: 1e9, admin: 1e9, windowMs: 3600_000 },
};
// On PostgreSQL the run gets a throwaway database of its own, dropped at the end.
const benchDatabase = `transport_ops_bench_${process.pid}`;
const admin = config.databaseUrl ? connect({ kind: 'postgres', url: config.databaseUrl, poolSize: 1 }) : null;
if (admin && config.databaseUrl) {
  await sql`create database ${sql.id(benchDatabase)}`.execute(admin);
  const url = new URL(config.databaseUrl);
  url.pathname = `/${benchDatabase}`;
  config.databaseUrl = url.toString();
}
const db = connect(databaseTarget(config));
await migrateToLatest(db);
await seedDemoData(db);

const app = await buildApp(config, { db });
const appUrl = await app.listen({ host: '127.0.0.1', port: 0 });
const login = await app.inject({ method: 'POST', url: '/auth/login', payload: { username: 'supervisor', password: 'demo1234' } });
const token = login.json().result.access_token as string;
const claims = app.tokens.verifyAccess(token);

// The bare route: same query, same mapping, same response schema, nothing else.
const bare = Fastify({ logger: false });
const contract = loadContract();
/** The schema with every local $ref inlined (this response's schemas are not recursive). */
const inline = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(inline);
  if (node === null || typeof node !== 'object') return node;
  const ref = (node as { $ref?: string }).$ref;
  if (ref?.startsWith('#/')) return inline(ref.slice(2).split('/').reduce<any>((n, k) => n[k.replace(/~1/g, '/').replace(/~0/g, '~')], contract));
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, inline(v)]));
};
const listSchema = inline((contract.paths['/trade/transports'] as any).get.responses['200'].content['application/json'].schema);
const auth: AuthContext = {
  userId: claims.sub, username: claims.username, email: claims.email, roleId: claims.role_id, accessLevel: claims.access_level,
  countryId: claims.country_id, organizationId: claims.org_id, actorId: null, sessionId: claims.sid, tokenId: claims.jti,
  expiresAt: new Date(claims.exp * 1000),
};
bare.get('/bare/transports', {
  schema: { response: { 200: listSchema as object } },
  handler: async () => {
    const { rows, total } = await fetchPage(listQuery(db, auth, {}), 1, 10);
    return { success: true, message: 'Transports retrieved', result: { data: rows.map(toListItem), meta: pageMeta(total, 1, 10) }, errors: null, except: null };
  },
});
const bareUrl = await bare.listen({ host: '127.0.0.1', port: 0 });

async function run(title: string, url: string, headers: Record<string, string> = {}) {
  await autocannon({ url, headers, connections, duration: 2 }); // warm-up
  const r = await autocannon({ url, headers, connections, duration: seconds });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${title}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
  console.log(
    `${title.padEnd(36)} ${r.requests.average.toFixed(0).padStart(6)} req/s   latency p50 ${r.latency.p50} ms  p90 ${r.latency.p90} ms  p99 ${r.latency.p99} ms`,
  );
  return r.requests.average;
}

console.log(`database: ${config.databaseUrl ? 'PostgreSQL' : 'PGlite (memory)'}; ${connections} connections, ${seconds} s per run`);
const bareRate = await run('bare Fastify route, same SQL', `${bareUrl}/bare/transports`);
const appRate = await run('GET /trade/transports (full server)', `${appUrl}/trade/transports`, { authorization: `Bearer ${token}` });
const ratio = appRate / bareRate;
console.log(`throughput ratio full/bare: ${ratio.toFixed(2)} (target >= 0.90) ${ratio >= 0.9 ? 'met' : 'NOT met'}`);

await app.close();
await bare.close();
await db.destroy();
if (admin) {
  await sql`drop database if exists ${sql.id(benchDatabase)} with (force)`.execute(admin);
  await admin.destroy();
}
