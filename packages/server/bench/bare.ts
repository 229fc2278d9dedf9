/**
 * The bare replay: Fastify and a pg pool, one route per scenario running the exact statements the
 * full server issued for it (no authentication, validation, glue, envelope building or mapping)
 * and answering the JSON the server answered (serialized on every request, as a minimal route
 * would: the two send the same bytes of body, so the comparison is not skewed by a cached
 * statistics answer or a page of joined rows weighing ten times the rows of the last statement). Started by `bench/run.ts` as a process of its own.
 * Statements are prepared as the server prepares them (`statementName`, the same rule), so the
 * comparison measures the server's own work, not a difference in how PostgreSQL is asked.
 *
 *   tsx bench/bare.ts <replay.json> <port> <database url>
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import pg from 'pg';
import { statementName } from '../src/db/prepared.js';
import type { Replay } from './capture.js';

const [file, port, url] = process.argv.slice(2) as [string, string, string];
const replays = JSON.parse(readFileSync(file, 'utf8')) as Replay[];
const pool = new pg.Pool({ connectionString: url, max: 10 });
pool.on('error', () => {});
const app = Fastify({ logger: false });
replays.forEach((replay, i) => {
  app.get(`/replay/${i}`, async (_req, reply) => {
    for (const s of replay.statements) {
      const name = statementName(s.sql);
      await pool.query(name === null ? { text: s.sql, values: s.parameters } : { name, text: s.sql, values: s.parameters });
    }
    reply.header('content-type', 'application/json');
    return JSON.stringify(replay.body);
  });
});
app.get('/health', async () => ({ ok: true }));
await app.listen({ host: '127.0.0.1', port: Number(port) });
