import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createFileStore, type FileStore } from '../lib/file-store.js';

declare module 'fastify' {
  interface FastifyInstance {
    files: FileStore;
  }
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The file store of the configuration. Files of deleted rows are removed once the deletion has
 * committed: at start, and after every successful write request (rows go by cascade from several
 * operations, so the queue filled by the database's trigger is the one place to look).
 */
export default fp(async function fileStore(app: FastifyInstance) {
  const files = createFileStore(app.config.fileStore);
  app.decorate('files', files);
  if (files.dir === null) return;

  let running: Promise<void> | null = null;
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
  });
  app.addHook('onResponse', async (req, reply) => {
    if (WRITES.has(req.method) && reply.statusCode < 400) void sweep();
  });
  app.addHook('onClose', async () => {
    await running;
    await files.close();
  });
});
