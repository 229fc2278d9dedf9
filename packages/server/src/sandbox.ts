import { parseArgs } from 'node:util';
import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { connect } from './db/connect.js';
import { migrateToLatest } from './db/migrate.js';
import { DEMO_PASSWORD, seedDemoData } from './db/seed.js';
import { createAdmin } from './db/admin.js';

/**
 * `pnpm sandbox [--port N] [--host H]`: the real server on an in-memory database holding the demo
 * data, for QA and frontend work. Quotas are raised unless RATE_LIMIT_* are set; browsers on local
 * origins may call it (the CORS rules of any non-production server, plus CORS_ORIGINS);
 * `POST /sandbox/reset` restores the demo data.
 */
// `pnpm sandbox --port N` reaches here as `-- --port N`.
const argv = process.argv.slice(2).filter((a) => a !== '--');
const { values: args } = parseArgs({ args: argv, options: { port: { type: 'string' }, host: { type: 'string' } } });
const config = loadConfig({
  RATE_LIMIT_ANONYMOUS: '10000',
  RATE_LIMIT_USER: '100000',
  RATE_LIMIT_ADMIN: '100000',
  PORT: '4000',
  ...process.env,
  ...(args.port ? { PORT: args.port } : {}),
  ...(args.host ? { HOST: args.host } : {}),
  SANDBOX: 'true',
  PGLITE_DATA_DIR: 'memory://',
  SEED_DEMO_DATA: 'true',
});

// One in-memory database, seeded once; in sandbox mode the app keeps a copy of this data inside
// it, which `POST /sandbox/reset` copies back (db/snapshot.ts).
const started = performance.now();
const db = connect({ kind: 'pglite', dataDir: 'memory://' });
await migrateToLatest(db);
await seedDemoData(db);
// The sandbox also has a super administrator (the demo data has none), for the operations only that role may call.
await createAdmin(db, { username: 'root', email: 'root@transport-ops.example', password: DEMO_PASSWORD }, { allowDemoPassword: true });

const app = await buildApp(config, { db });

closeWithGrace({ delay: 5_000 }, async ({ signal, err }) => {
  if (err) app.log.error({ err }, 'closing after an error');
  else app.log.info({ signal }, 'shutting down');
  // The database closes after the app: the app's own closing steps still write to it (the live
  // streams give back their leases).
  await app.close();
  await db.destroy();
});

await app.listen({ host: config.host, port: config.port });
const base = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`;
app.log.info(
  `Sandbox ready on ${base} in ${Math.round(performance.now() - started)} ms: in-memory demo data (accounts root, admin, supervisor, manager, agent, agent2; password demo1234); reset with POST ${base}/sandbox/reset; docs at ${base}/docs`,
);
