import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Pool } from 'pg';
import { Gauge, Registry } from 'prom-client';
import { poolOf } from '../db/connect.js';
import { ListError } from '../lib/errors.js';
import { collectProcessMetrics, observeRequest, recordQueries, registry } from '../lib/metrics.js';

type GaugeSpecs<K extends string> = Record<K, { name: string; help: string }>;

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Adds gauges read when `/metrics` is scraped, all from one call of `read` (a worker's backlog:
     * one query for several figures). lib/metrics.ts has the counters every layer bumps.
     */
    scrapeGauge<K extends string>(gauges: GaugeSpecs<K>, read: () => Promise<Record<K, number | null>>): void;
  }
}

/** Where `/metrics` is served (outside the contract, like `/docs`; see the server README). */
export const METRICS_PATH = '/metrics';

/**
 * Gauges whose values one read gives at scrape time. The gauges of one scrape share one call; a
 * failed read (database down) leaves the last values and is logged.
 */
function scrapeGauges<K extends string>(
  app: FastifyInstance,
  registry: Registry,
  gauges: GaugeSpecs<K>,
  read: () => Promise<Record<K, number | null>>,
): void {
  let pending: Promise<Record<K, number | null> | null> | null = null;
  const shared = () => {
    pending ??= read()
      .catch((error: unknown) => {
        app.log.warn({ err: error }, 'metrics: a scrape-time read failed');
        return null;
      })
      .finally(() => {
        pending = null;
      });
    return pending;
  };
  for (const key of Object.keys(gauges) as K[]) {
    const { name, help } = gauges[key];
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        const values = await shared();
        const value = values?.[key];
        if (value !== undefined && value !== null) this.set(value);
      },
    });
  }
}

/** Equal without telling, by its timing, how much of the token was right. */
function sameToken(given: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * Prometheus metrics: every answered request is timed by operationId, method and status class
 * (`onResponse`, the request's own elapsed time), and `GET /metrics` writes the process's counters
 * and histograms (lib/metrics.ts) followed by this app's scrape-time gauges. The route exists only
 * when METRICS_TOKEN is set (404 otherwise) and answers only `Authorization: Bearer <METRICS_TOKEN>`
 * (401 envelope otherwise). It is not an operation of the contract: the security plugin and the
 * rate limiter, which act on the contract's routes, never see it.
 */
export default fp(async function metricsPlugin(app: FastifyInstance) {
  const scraped = new Registry();
  app.decorate('scrapeGauge', <K extends string>(gauges: GaugeSpecs<K>, read: () => Promise<Record<K, number | null>>) =>
    scrapeGauges(app, scraped, gauges, read),
  );
  // PostgreSQL only: the embedded database is one connection inside the process, no pool.
  if (poolOf(app.db)) {
    const gauge = (name: string, help: string, value: (pool: Pool) => number) =>
      new Gauge({
        name,
        help,
        registers: [scraped],
        collect() {
          const pool = poolOf(app.db);
          if (pool) this.set(value(pool));
        },
      });
    gauge('db_pool_connections', 'Connections the pg pool holds open (in use and idle)', (p) => p.totalCount);
    gauge('db_pool_idle_connections', 'Open pg connections not in use', (p) => p.idleCount);
    gauge('db_pool_waiting_requests', 'Queries waiting for a pg connection', (p) => p.waitingCount);
    gauge('db_pool_max_connections', 'Largest size of the pg pool (DATABASE_POOL_SIZE)', (p) => p.options.max ?? 10);
  }

  // Without METRICS_TOKEN nothing can read the figures: requests and queries are not timed for them
  // (the counters that events bump stay, at a few nanoseconds each). `pnpm bench:observability`
  // measures what recording costs a request.
  const token = app.config.metricsToken;
  if (!token) return;
  app.addHook('onResponse', (req, reply, done) => {
    const route = req.routeOptions;
    const operation = (route.schema as { operationId?: string } | undefined)?.operationId ?? route.url ?? 'unmatched';
    observeRequest(operation, req.method, reply.statusCode, reply.elapsedTime);
    done();
  });
  recordQueries();
  collectProcessMetrics();
  const scrape = async (req: FastifyRequest, reply: FastifyReply) => {
    const header = req.headers.authorization ?? '';
    const given = header.startsWith('Bearer ') ? header.slice(7) : '';
    if (!given || !sameToken(given, token)) {
      throw new ListError(401, 'Authentication required', ['GET /metrics takes Authorization: Bearer <METRICS_TOKEN>']);
    }
    const [process, app_] = await Promise.all([registry.metrics(), scraped.metrics()]);
    return reply.header('cache-control', 'no-store').type(registry.contentType).send(`${process}\n${app_}`);
  };
  app.get(METRICS_PATH, scrape);
});
