import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, onRequestHookHandler, onSendHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import helmet, { type HelmetOptions } from 'helmet';

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

const HELMET: Readonly<HelmetOptions> = {
  contentSecurityPolicy: { useDefaults: false, directives: API_POLICY },
  referrerPolicy: { policy: 'no-referrer' },
  strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: true },
};

/**
 * The headers helmet sets for `options`, computed once: they depend on nothing in the request,
 * and building helmet's middleware anew for every request (as @fastify/helmet does) cost more
 * CPU than a small API answer.
 */
export function helmetHeaders(options: Readonly<HelmetOptions>): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, () => {});
  return headers;
}

/**
 * Security headers on every answer (helmet's: nosniff, frame, referrer, HSTS, a CSP that allows
 * nothing), a CSP fit for the documentation page on `/docs`, `no-store` on token answers.
 * Callback-style hooks: no promise per request.
 */
export default fp(async function headers(app: FastifyInstance) {
  const security = helmetHeaders(HELMET);
  const apply: onRequestHookHandler = (_req, reply, done) => {
    reply.headers(security);
    done();
  };
  app.addHook('onRequest', apply);
  const adjust: onSendHookHandler = (req, reply, payload, done) => {
    reply.header('x-request-id', req.id);
    if (req.routeOptions.url === '/docs') reply.header('content-security-policy', DOCS_POLICY);
    const operationId = (req.routeOptions.schema as { operationId?: string } | undefined)?.operationId;
    if (operationId !== undefined && TOKEN_OPERATIONS.has(operationId)) {
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    }
    done(null, payload);
  };
  app.addHook('onSend', adjust);
});
