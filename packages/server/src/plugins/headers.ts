import type { FastifyInstance, onRequestHookHandler, onSendHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { HelmetOptions } from 'helmet';
import { hookList } from '../http/route-hooks.js';
import { helmetHeaders } from '../patches/helmet-headers.js';

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

const TRANSPORT: Readonly<HelmetOptions> = {
  xFrameOptions: { action: 'deny' },
  referrerPolicy: { policy: 'no-referrer' },
  strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: true },
};

/**
 * The headers of an API answer (JSON or a file), those the OWASP REST Security Cheat Sheet lists
 * for APIs: a CSP that allows nothing, no framing, nosniff, HSTS, no referrer, and the resource
 * kept to this origin. Helmet's defaults are made for HTML documents: the headers that only act on
 * a document a browser renders (opener policy, origin-agent cluster, DNS prefetching, Internet
 * Explorer's download and XSS-filter switches, Flash and Acrobat policy files) go on the one
 * document the API serves, the documentation page.
 */
export const API_HELMET: Readonly<HelmetOptions> = Object.assign({}, TRANSPORT, {
  contentSecurityPolicy: { useDefaults: false, directives: API_POLICY },
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
});

/** The documentation page: helmet's document headers, with a CSP that lets the page run. */
export const DOCS_HELMET: Readonly<HelmetOptions> = Object.assign({}, TRANSPORT, { contentSecurityPolicy: false });

/**
 * The security headers of every answer, computed once (src/patches/helmet-headers.ts): they depend
 * on nothing in the request, and running helmet's middleware on every answer costs more CPU.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = helmetHeaders(API_HELMET);

/** What the documentation page adds to them (or replaces). */
const DOCS_HEADERS: Readonly<Record<string, string>> = Object.assign(
  Object.fromEntries(Object.entries(helmetHeaders(DOCS_HELMET)).filter(([name, value]) => SECURITY_HEADERS[name] !== value)),
  { 'content-security-policy': DOCS_POLICY },
);

/**
 * Security headers on every answer (`SECURITY_HEADERS`) and the request id, set as the request
 * arrives; the document headers and a CSP fit for the documentation page on `/docs`, and
 * `no-store` on token answers, by an `onSend` hook on those routes only. Callback-style
 * hooks: no promise per request, and no hook on every answer that has nothing to adjust.
 */
export default fp(async function headers(app: FastifyInstance) {
  const apply: onRequestHookHandler = (req, reply, done) => {
    reply.headers(SECURITY_HEADERS);
    reply.header('x-request-id', req.id);
    done();
  };
  app.addHook('onRequest', apply);
  const docs: onSendHookHandler = (_req, reply, payload, done) => {
    reply.headers(DOCS_HEADERS);
    done(null, payload);
  };
  const noStore: onSendHookHandler = (_req, reply, payload, done) => {
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    done(null, payload);
  };
  app.addHook('onRoute', (route) => {
    const operationId = (route.schema as { operationId?: string } | undefined)?.operationId;
    const adjust = route.url === '/docs' ? docs : operationId !== undefined && TOKEN_OPERATIONS.has(operationId) ? noStore : undefined;
    if (adjust) route.onSend = [...hookList(route.onSend), adjust];
  });
});
