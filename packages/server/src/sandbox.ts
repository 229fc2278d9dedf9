import { parseArgs } from 'node:util';
import closeWithGrace from 'close-with-grace';
import { Kysely } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { connect, openPGlite } from './db/connect.js';
import { keepSpareCopy } from './db/reloadable.js';
import { migrateToLatest } from './db/migrate.js';
import type { Database } from './db/schema.js';
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

// Seed once, dump, and run on a copy opened from the dump: a reset reloads that same dump.
const started = performance.now();
const seeding = openPGlite();
const seeded = new Kysely<Database>({ dialect: new PGliteDialect(seeding) });
await migrateToLatest(seeded);
await seedDemoData(seeded);
// The sandbox also has a super administrator (the demo data has none), for the operations only that role may call.
await createAdmin(seeded, { username: 'root', email: 'root@transport-ops.example', password: DEMO_PASSWORD });
const dump = await seeding.dumpDataDir('none');
await seeded.destroy();
const db = connect({ kind: 'pglite', dataDir: 'memory://', loadDataDir: dump });
keepSpareCopy(db);

const app = await buildApp(config, { db });
app.addHook('onClose', async () => db.destroy());

closeWithGrace({ delay: 5_000 }, async ({ signal, err }) => {
  if (err) app.log.error({ err }, 'closing after an error');
  else app.log.info({ signal }, 'shutting down');
  await app.close();
});

await app.listen({ host: config.host, port: config.port });
const base = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`;
app.log.info(
  `Sandbox ready on ${base} in ${Math.round(performance.now() - started)} ms: in-memory demo data (accounts root, admin, supervisor, manager, agent, agent2; password demo1234); reset with POST ${base}/sandbox/reset; docs at ${base}/docs`,
);
