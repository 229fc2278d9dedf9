import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { OUTAGE_RETRY_AFTER_SECONDS as retryAfterSeconds } from '../lib/outage.js';

const BODY = {
  success: false,
  message: 'Service is shutting down',
  result: null,
  errors: { code: 'SERVICE_UNAVAILABLE', retryAfterSeconds },
  except: null,
};

/**
 * Requests that arrive while the server drains (on a connection opened before it stopped
 * listening) get the contract's 503 envelope with Retry-After, and their connection is closed, so
 * that the client retries elsewhere; requests already in flight (uploads included) run to their
 * end. Replaces Fastify's own `return503OnClosing` answer, which has neither (app.ts turns it off).
 */
export default fp(async function shutdown(app: FastifyInstance) {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', (_req, reply, done) => {
    if (!closing) return done();
    reply.code(503).header('retry-after', String(retryAfterSeconds)).header('connection', 'close').send(BODY);
  });
});
