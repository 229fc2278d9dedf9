import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { PAGE_HTML, PAGE_SCRIPT, PAGE_STYLE } from './page-html.js';

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/**
 * Its CSP lets the page run its own inline style and script (by their hashes) and read this
 * origin, nothing else: no other script, frame, font, image host or form target.
 */
export const PAGE_POLICY = [
  "default-src 'none'",
  `script-src ${sha256(PAGE_SCRIPT)}`,
  `style-src ${sha256(PAGE_STYLE)}`,
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * `GET /track/<token>`: the tracking page of a tracking link (the link's `url`). The same document
 * for every token: the page reads its data from `GET /public/tracking/<token>`, which checks the
 * token, so an invalid link shows its message there. Counted against the client address like the
 * public operations; never stored by a cache (the address carries the token).
 */
export default fp(async function trackingPage(app: FastifyInstance) {
  const page = Buffer.from(PAGE_HTML);
  app.get('/track/:token', async (_req, reply) =>
    reply
      .header('content-security-policy', PAGE_POLICY)
      .header('cache-control', 'no-store')
      .header('x-frame-options', 'DENY')
      .type('text/html; charset=utf-8')
      .send(page),
  );
});
