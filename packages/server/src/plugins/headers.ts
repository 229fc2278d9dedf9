import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/** The API answers JSON and files only: nothing may be loaded, framed or run from its answers. */
const API_POLICY = { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] };

/** The Redoc page is one self-contained HTML file with inline scripts and styles and a search worker. */
const DOCS_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-inline' blob:",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "worker-src 'self' blob:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'none'",
].join('; ');

/** Operations whose answer carries tokens: never stored by a browser or a proxy. */
const TOKEN_OPERATIONS = new Set(['login', 'refreshToken']);

/**
 * Security headers on every answer (@fastify/helmet: nosniff, frame, referrer, HSTS, a CSP that
 * allows nothing), a CSP fit for the documentation page on `/docs`, `no-store` on token answers.
 */
export default fp(async function headers(app: FastifyInstance) {
  await app.register(helmet, {
    global: true,
    contentSecurityPolicy: { useDefaults: false, directives: API_POLICY },
    referrerPolicy: { policy: 'no-referrer' },
    hsts: { maxAge: 31_536_000, includeSubDomains: true },
  });
  app.addHook('onSend', async (req, reply) => {
    if (req.routeOptions.url === '/docs') reply.header('content-security-policy', DOCS_POLICY);
    const operationId = (req.routeOptions.schema as { operationId?: string } | undefined)?.operationId;
    if (operationId !== undefined && TOKEN_OPERATIONS.has(operationId)) {
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    }
  });
});
