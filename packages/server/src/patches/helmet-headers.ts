/**
 * PATCH helmet: its headers computed once, at start, by running its middleware on a stand-in
 * response that records them, instead of running the middleware on every response.
 *
 * What it changes: `helmetHeaders(options)` calls helmet's middleware once with an empty request
 * object and a recorder in place of Node's `ServerResponse` (only `setHeader` and `removeHeader`),
 * and returns the headers it set. plugins/headers.ts sets that object on every answer with
 * Fastify's `reply.headers` (and on the documentation page the difference for `/docs`).
 * Why a patch: helmet's only public API is a Connect middleware on Node's request and response.
 * That the middleware needs nothing of the request (a static CSP, no directive functions), calls
 * nothing on the response but `setHeader` and `removeHeader`, calls `next` before returning, and
 * sets the same headers whatever the request, is helmet's current behaviour, not its promise.
 * Measured gain: per request, helmet's middleware (built once) run on a real ServerResponse costs
 * 4.7-5.9 us, building it per request as @fastify/helmet does 15-34 us, and the recorded six
 * headers set with `reply.headers` 2.1-2.6 us: about 3 us of CPU saved on every answer (loops of
 * 100,000 with the API's options, helmet 8.3.0, Node 24, this 2-core machine).
 * Checked against: helmet 8.3 (`CHECKED`); test/patches/helmet-headers.test.ts fails when the
 * installed version leaves that range, when the middleware touches anything of the request or of
 * the response other than those two methods, or when the recorded headers differ from those
 * helmet sets on a real ServerResponse.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';

/** The versions this patch was checked against: `from` inclusive, `below` exclusive. */
export const CHECKED = { package: 'helmet', from: '8.3.0', below: '9.0.0' } as const;

/** The headers helmet sets for `options` (lower-case names), computed once: they depend on nothing in the request. */
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
