import { sql } from 'kysely';
import { ListError } from '../../http/errors.js';
import type { ModuleHandlers } from '../../http/handlers.js';

const startedAt = Date.now();
const version = '1.0.0';

export const systemHandlers: ModuleHandlers<'getHealth'> = {
  async getHealth(req) {
    const started = performance.now();
    try {
      await sql`select 1`.execute(req.server.db);
    } catch (error) {
      req.log.error({ err: error }, 'health check: database did not answer');
      throw new ListError(503, 'Database unavailable', ['database did not answer']);
    }
    return {
      message: 'Service is healthy',
      result: {
        status: 'ok',
        database: { status: 'up', latencyMs: Math.round((performance.now() - started) * 100) / 100 },
        uptimeSeconds: Math.floor((Date.now() - startedAt) / 1000),
        version,
        timestamp: new Date().toISOString(),
      },
    };
  },
};
