import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';

const config = loadConfig();
const app = await buildApp(config);

closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
  if (err) app.log.error({ err }, 'closing after an error');
  else app.log.info({ signal }, 'shutting down');
  await app.close();
});

await app.listen({ host: config.host, port: config.port });
const base = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`;
app.log.info(
  `Transport Operations API ready on ${base} (${config.databaseUrl ? 'PostgreSQL' : `embedded PGlite at ${config.pgliteDataDir}`}); docs at ${base}/docs, contract at ${base}/openapi.json`,
);
