import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { connect, databaseTarget } from './db/connect.js';
import { DataDirLocked } from './db/lock.js';
import { prepareDatabase } from './db/prepare.js';

/** A mistake of the operator (configuration, a locked database): one line, no stack trace. */
function exitOn(error: unknown): never {
  if (error instanceof ConfigError || error instanceof DataDirLocked) console.error(error.message);
  else console.error(error);
  process.exit(1);
}

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  exitOn(error);
}
let db: ReturnType<typeof connect>;
try {
  db = connect(databaseTarget(config));
} catch (error) {
  exitOn(error);
}
const target = config.databaseUrl ? 'PostgreSQL' : `embedded PGlite at ${config.pgliteDataDir}`;
try {
  await prepareDatabase(db, config, (message) => console.log(message));
} catch (error) {
  await db.destroy().catch(() => {});
  console.error(`The database (${target}) could not be prepared: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
const app = await buildApp(config, { db });

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
  },
);

await app.listen({ host: config.host, port: config.port });
const base = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`;
app.log.info(`Transport Operations API ready on ${base} (${target}); docs at ${base}/docs, contract at ${base}/openapi.json`);
