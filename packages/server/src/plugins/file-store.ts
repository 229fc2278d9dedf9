import type { FastifyInstance, onResponseHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { createFileStore, type FileStore } from '../lib/file-store.js';
import { hookList } from '../http/route-hooks.js';

declare module 'fastify' {
  interface FastifyInstance {
    files: FileStore;
  }
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Files younger than this may belong to an upload still in flight (on another instance sharing the directory). */
const ORPHAN_AGE_MS = 3600_000;

/**
 * The file store of the configuration. Before serving, the spool files of uploads a previous
 * process of this host was receiving when it died are removed (whatever the store). Files of
 * deleted rows are removed once the deletion has committed: at start, and after every successful
 * write request (rows go by cascade from several operations, so the queue filled by the database's
 * trigger is the one place to look). At start, files an hour old that no row refers to (a crash
 * before their row committed) are removed too.
 */
export default fp(async function fileStore(app: FastifyInstance) {
  const files = createFileStore(app.config.fileStore);
  app.decorate('files', files);
  app.addHook('onReady', async () => {
    const n = await files
      .removeStaleSpools()
      .catch((error: unknown) => app.log.error({ err: error }, 'spool files of a previous process could not be removed'));
    if (n) app.log.info(`removed ${n} spool files of uploads a previous process did not finish`);
  });
  if (files.dir === null) {
    app.addHook('onClose', async () => files.close());
    return;
  }

  let running: Promise<void> | null = null;
  let orphans: Promise<unknown> = Promise.resolve();
  let again = false;
  const sweep = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          // A full batch means more may be queued.
          if ((await files.sweep(app.db)) === 500) again = true;
        } while (again);
      } catch (error) {
        app.log.warn({ err: error }, 'files of deleted rows not removed yet: retried after the next write');
      } finally {
        running = null;
      }
    })();
    return running;
  };
  app.addHook('onReady', async () => {
    await sweep();
    // In the background: the walk of a large directory must not delay the start.
    orphans = files
      .removeOrphans(app.db, ORPHAN_AGE_MS)
      .then((n) => n > 0 && app.log.info(`removed ${n} stored files no row refers to`))
      .catch((error) => app.log.warn({ err: error }, 'stored files no row refers to were not removed'));
  });
  // On the routes of write methods only, callback-style: reads have nothing to sweep.
  const afterWrite: onResponseHookHandler = (_req, reply, done) => {
    if (reply.statusCode < 400) void sweep();
    done();
  };
  app.addHook('onRoute', (route) => {
    if (!hookList(route.method).some((m) => WRITES.has(m))) return;
    route.onResponse = [...hookList(route.onResponse), afterWrite];
  });
  app.addHook('onClose', async () => {
    await Promise.all([running, orphans]);
    await files.close();
  });
});
