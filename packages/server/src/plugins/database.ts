import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import { connect, type DatabaseTarget } from '../db/connect.js';
import { migrateToLatest } from '../db/migrate.js';
import type { Database } from '../db/schema.js';
import { seedDemoData } from '../db/seed.js';

declare module 'fastify' {
  interface FastifyInstance {
    db: Kysely<Database>;
  }
}

export function databaseTarget(config: Config): DatabaseTarget {
  return config.databaseUrl
    ? { kind: 'postgres', url: config.databaseUrl, poolSize: config.databasePoolSize }
    : { kind: 'pglite', dataDir: config.pgliteDataDir };
}

/** Opens the database (or takes the one given), migrates it, seeds demo data into an empty one. */
export default fp(async function database(app: FastifyInstance, opts: { db?: Kysely<Database> }) {
  const db = opts.db ?? connect(databaseTarget(app.config));
  await migrateToLatest(db);
  if (app.config.seedDemoData && (await seedDemoData(db))) app.log.info('demo data seeded');
  app.decorate('db', db);
  if (!opts.db) app.addHook('onClose', async () => db.destroy());
});
