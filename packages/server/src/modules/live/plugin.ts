import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { listen } from '../../db/listen.js';
import { processJob } from '../../lib/process-job.js';
import { LiveHub } from './hub.js';
import { sweepLiveEvents } from './repository.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The live transport streams of this instance (modules/live/hub.ts). */
    live: LiveHub;
    /** Deletes the live events older than LIVE_RETENTION_MINUTES before `now` (runs with the position maintenance's period). */
    sweepLiveEvents(now?: Date): Promise<number>;
  }
}

/**
 * Live transport streams: the hub, woken by every commit that adds live events. On PostgreSQL each
 * instance LISTENs on `transport_live` (the payload is the transport id; 0028 notifies at commit,
 * whichever instance or job wrote); on the embedded database (one process) a successful write
 * answered here wakes every stream. Streams end as the instance starts closing (`preClose`), so
 * that the shutdown never waits for them; clients resume elsewhere with Last-Event-ID.
 */
export default fp(async function live(app: FastifyInstance) {
  const hub = new LiveHub(app.db, app.config.live, (error) =>
    app.log.warn({ err: error }, 'live streams: a database call failed (reading events, or a lease)'),
  );
  app.decorate('live', hub);
  const retentionMs = app.config.live.retentionMinutes * 60_000;
  const sweep = processJob(app, (now: Date = new Date()) => sweepLiveEvents(app.db, new Date(now.getTime() - retentionMs)), {
    periodMs: app.config.positions.maintenanceIntervalMs,
    background: (round) => round().catch((error: unknown) => app.log.warn({ err: error }, 'live events not swept')),
  });
  app.decorate('sweepLiveEvents', sweep);

  let listener: ReturnType<typeof listen> = null;
  app.addHook('onReady', async () => {
    listener = listen(
      app.db,
      'transport_live',
      (payload) => {
        const id = payload ? Number(payload) : Number.NaN;
        hub.wake(Number.isSafeInteger(id) ? id : undefined);
      },
      (error) => app.log.warn({ err: error }, 'live streams: LISTEN connection lost, reconnecting'),
    );
  });
  app.addHook('onResponse', (req, reply, done) => {
    if (!listener && req.method !== 'GET' && req.method !== 'HEAD' && reply.statusCode < 400 && hub.count() > 0) hub.wake();
    done();
  });
  app.addHook('preClose', async () => {
    hub.closeAll();
  });
  app.addHook('onClose', async () => {
    await listener?.stop();
    await hub.settle();
  });
});
