import type { FastifyInstance } from 'fastify';
import { reloadDatabase } from '../../db/reloadable.js';
import { restoreSnapshot } from '../../db/snapshot.js';
import { AppError } from '../../lib/errors.js';
import type { ModuleHandlers } from '../../http/handlers.js';
import { forgetDatabaseMemory } from '../../lib/database-memory.js';
import { invalidateAnnouncementCaches } from '../announcements/cache.js';

/**
 * What the process holds about a database whose data was replaced under the server (the reset
 * below; the tests' copies switched under a shared app): trusted sessions, the announcement caches,
 * cached statistics, totals and planner estimates. All of it is dropped.
 */
export async function forgetReplacedDatabase(server: FastifyInstance): Promise<void> {
  server.sessions.clear();
  server.apiKeys.clear();
  forgetDatabaseMemory(server.db);
  await invalidateAnnouncementCaches(server);
}

export const sandboxHandlers: ModuleHandlers<'resetSandbox'> = {
  async resetSandbox(req) {
    // Outside sandbox mode the operation does not exist: the same answer as an unbound path.
    if (!req.server.config.sandbox) {
      const url = req.url.split('?')[0]!;
      throw new AppError('ROUTE_NOT_FOUND', { method: req.method, url }, `No operation at ${req.method} ${url}`);
    }
    const started = performance.now();
    // The copy of the data taken at start (app.ts), else a database reopened from its dump.
    if (!(await restoreSnapshot(req.server.db)) && !(await reloadDatabase(req.server.db))) {
      throw new Error('sandbox reset needs the embedded database with the copy of its data taken at start');
    }
    await forgetReplacedDatabase(req.server);
    return {
      message: 'Sandbox reset to its demo data',
      result: { restoredAt: new Date().toISOString(), durationMs: Math.round((performance.now() - started) * 10) / 10 },
    };
  },
};
