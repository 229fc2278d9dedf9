import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Kysely } from 'kysely';
import { connect, databaseTarget } from '../db/connect.js';
import type { Database } from '../db/schema.js';

declare module 'fastify' {
  interface FastifyInstance {
    db: Kysely<Database>;
  }
}

/**
 * Decorates the app with its database: the one given (the server and tests open, migrate and
 * close it themselves, see db/prepare.ts) or one opened from the configuration and closed with the app.
 */
export default fp(async function database(app: FastifyInstance, opts: { db?: Kysely<Database> }) {
  const db = opts.db ?? connect(databaseTarget(app.config));
  app.decorate('db', db);
  if (!opts.db) app.addHook('onClose', async () => db.destroy());
});
