import closeWithGrace from 'close-with-grace';
import type { FastifyPluginAsync } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { connect, databaseTarget } from './db/connect.js';
import { DataDirLocked } from './db/lock.js';
import { prepareDatabase } from './db/prepare.js';

/**
 * Opens and prepares the database, builds the app and listens; closes everything on SIGTERM or
 * SIGINT. `log` writes the lines before the app's logger exists (the same JSON lines).
 */
export async function start(
  config: Config,
  log: Logger,
  tracing: { plugin: FastifyPluginAsync; shutdown: () => Promise<void> } | null,
): Promise<void> {
  let db: ReturnType<typeof connect>;
  try {
    db = connect(databaseTarget(config));
  } catch (error) {
    // A locked database directory is the operator's mistake: one line, no stack trace.
    if (error instanceof DataDirLocked) log.fatal(error.message);
    else log.fatal({ err: error }, 'the database could not be opened');
    process.exit(1);
  }
  const target = config.databaseUrl ? 'PostgreSQL' : `embedded PGlite at ${config.pgliteDataDir}`;
  try {
    await prepareDatabase(db, config, (message) => log.info(message));
  } catch (error) {
    await db.destroy().catch(() => {});
    log.fatal(`The database (${target}) could not be prepared: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  const app = await buildApp(config, tracing ? { db, tracing: tracing.plugin } : { db });

  // A promise rejected without a handler (a dependency failing in the background) is logged, not
  // fatal: the requests that need the dependency answer 503 on their own.
  process.on('unhandledRejection', (reason) => app.log.error({ err: reason }, 'unhandled rejection'));
  // Requests in flight get SHUTDOWN_GRACE_MS to finish; past it (or on a second signal) the process
  // exits at once, and the spool files of the uploads still arriving go with it (their rows were never
  // written).
  const abandon = (reason: string) => {
    app.log.error(`${reason}: exiting with requests in flight; their uploads are discarded`);
    app.files.abandonSpool();
  };
  closeWithGrace(
    {
      delay: config.shutdownGraceMs,
      skip: ['unhandledRejection'],
      onTimeout: (delay) => abandon(`shutdown grace of ${delay} ms elapsed`),
      onSecondSignal: (signal) => abandon(`second ${signal}`),
    },
    async ({ signal, err }) => {
      if (err) app.log.error({ err }, 'closing after an error');
      else app.log.info({ signal }, 'shutting down');
      await app.close();
      await db.destroy();
      // The spans of the last requests are exported before the process exits.
      await tracing?.shutdown().catch((error: unknown) => app.log.warn({ err: error }, 'tracing: the last spans could not be exported'));
    },
  );

  await app.listen({ host: config.host, port: config.port });
  const base = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`;
  app.log.info(`Transport Operations API ready on ${base} (${target}); docs at ${base}/docs, contract at ${base}/openapi.json`);
}
