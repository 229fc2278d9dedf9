import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { listen } from '../../db/listen.js';
import { processJob } from '../../lib/process-job.js';
import { type DeliveryRound, deliverDue } from './deliver.js';
import { deliveryBacklog, hasActiveSubscription, sweepEvents } from './repository.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Runs delivery rounds until nothing is due now (tests pass a later clock to make retries due). */
    deliverWebhooksOnce(now?: Date): Promise<DeliveryRound>;
    /** Removes the events older than 30 days (the hourly sweep; tests call it with their own clock). */
    sweepOldEvents(now?: Date): Promise<number>;
    /** Tells every instance that the set of webhook endpoints changed (so writes wake their workers). */
    webhookEndpointsChanged(): Promise<void>;
  }
}

const CHANGED = 'webhook-endpoints-changed';
export const EVENT_RETENTION_MS = 30 * 86_400_000;
const SWEEP_PERIOD_MS = 3_600_000;

/**
 * The webhook delivery worker of this instance. It runs a round every WEBHOOK_POLL_INTERVAL_MS
 * (retries coming due) and at once when deliveries are queued: on PostgreSQL when the NOTIFY of a
 * committed write arrives (any instance's, or a background job's); on the embedded database after
 * this process answers a successful write while some endpoint is active (the write's transaction
 * has committed by then). Either way an event is sent when its write commits. Rounds never overlap in one process;
 * instances share the work through `FOR UPDATE SKIP LOCKED`, so each attempt is made by one of them.
 */
export default fp(async function webhookWorker(app: FastifyInstance) {
  const options = app.config.webhooks;
  const enabled = options.pollIntervalMs > 0;
  let active = false;
  const refreshActive = async () => {
    active = await hasActiveSubscription(app.db);
  };

  const deliver = (now?: Date) => deliverDue(app.db, now === undefined ? options : Object.assign({}, options, { now }));
  const run = processJob(app, deliver, {
    periodMs: options.pollIntervalMs,
    background: (round) => round().catch((error: unknown) => app.log.error({ err: error }, 'webhook delivery round failed')),
  });
  app.decorate('deliverWebhooksOnce', run);
  app.scrapeGauge(
    {
      pending: {
        name: 'webhook_deliveries_pending',
        help: 'Webhook deliveries not yet delivered nor failed for good (due now or retried later)',
      },
      due: { name: 'webhook_deliveries_due', help: 'Webhook deliveries due now and not yet sent' },
      oldestAge: {
        name: 'webhook_deliveries_oldest_pending_age_seconds',
        help: 'Age of the oldest pending webhook delivery, since it was queued',
      },
      oldestDueLateness: {
        name: 'webhook_deliveries_oldest_due_lateness_seconds',
        help: 'How long the oldest due webhook delivery has been waiting past its due time',
      },
    },
    () => deliveryBacklog(app.db),
  );

  // A wake during a round runs one more round after it (the round in flight may have claimed before
  // the commit). `running` is cleared in the same step as the last look at `again`: cleared in a
  // `.finally` of the loop's promise instead, a wake between the two (a response finishing in a
  // microtask) set `again` for a loop that had already ended, and its event waited for the next one.
  let running = false;
  let again = false;
  const wake = () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    void (async () => {
      try {
        do {
          again = false;
          await run().catch((error: unknown) => app.log.error({ err: error }, 'webhook delivery round failed'));
        } while (again);
      } finally {
        running = false;
      }
    })();
  };

  app.decorate('webhookEndpointsChanged', async () => {
    await app.bus.publish(CHANGED, '');
  });
  app.decorate('sweepOldEvents', (now: Date = new Date()) => sweepEvents(app.db, new Date(now.getTime() - EVENT_RETENTION_MS)));
  processJob(app, () => app.sweepOldEvents(), {
    periodMs: enabled ? SWEEP_PERIOD_MS : 0,
    background: (sweep) => sweep().catch((error: unknown) => app.log.error({ err: error }, 'event sweep failed')),
  });
  if (!enabled) return;

  app.bus.subscribe(CHANGED, () => {
    refreshActive().catch(() => undefined);
  });
  let timer: NodeJS.Timeout | undefined;
  // On PostgreSQL every instance hears each commit that queued deliveries (NOTIFY, migration 0027),
  // whichever instance or job wrote it; on the embedded database, writes of this process wake it below.
  let listener: ReturnType<typeof listen> = null;
  app.addHook('onReady', async () => {
    listener = listen(app.db, 'webhook_deliveries', wake, (error) =>
      app.log.warn({ err: error }, 'webhook worker: LISTEN connection lost, polling until it is back'),
    );
    // Not awaited: the start never waits for the database (it may be down; the answer comes soon).
    refreshActive().catch(() => undefined);
    timer = setInterval(() => refreshActive().catch(() => undefined), 30_000);
    timer.unref();
  });
  app.addHook('onClose', async () => {
    clearInterval(timer);
    await listener?.stop();
  });
  app.addHook('onResponse', (req, reply, done) => {
    if (!listener && active && req.method !== 'GET' && req.method !== 'HEAD' && reply.statusCode < 400) wake();
    done();
  });
});
