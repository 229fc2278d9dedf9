import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import helmet, { type HelmetOptions } from 'helmet';
import { describe, expect, it } from 'vitest';
import { CHECKED, helmetHeaders } from '../../src/patches/helmet-headers.js';
import { API_HELMET, DOCS_HELMET } from '../../src/plugins/headers.js';
import { installedVersion, withinChecked } from '../support/installed.js';

/*
 * The helmet headers patch (src/patches/helmet-headers.ts) runs helmet's middleware once on a
 * stand-in response: these tests fail when an upgrade makes the middleware need more than the
 * stand-in offers, or set other headers than it does on a real response.
 */
const OPTION_SETS: Array<[string, Readonly<HelmetOptions>]> = [
  ['API answers', API_HELMET],
  ['the documentation page', DOCS_HELMET],
  ["helmet's defaults", {}],
];

/** What helmet's middleware does with a request and a response, property by property, and whether it calls `next` before returning. */
function observe(options: Readonly<HelmetOptions>) {
  const touched: string[] = [];
  const spy = (part: string, target: Record<string, unknown>) =>
    new Proxy(target, {
      get(object, key, receiver) {
        touched.push(`${part}.${String(key)}`);
        return Reflect.get(object, key, receiver);
      },
      set(object, key, value) {
        touched.push(`${part}.${String(key)} =`);
        return Reflect.set(object, key, value);
      },
    });
  let nextCalled = false;
  const res = spy('res', { setHeader: () => undefined, removeHeader: () => undefined });
  helmet(options)(spy('req', {}) as unknown as IncomingMessage, res as unknown as ServerResponse, () => {
    nextCalled = true;
  });
  return { touched: [...new Set(touched)].sort(), nextCalled };
}

/** The headers helmet sets on a real ServerResponse, as the patch records them. */
function onRealResponse(options: Readonly<HelmetOptions>): Record<string, string> {
  const req = new IncomingMessage(new Socket());
  const res = new ServerResponse(req);
  let nextCalled = false;
  helmet(options)(req, res, () => {
    nextCalled = true;
  });
  expect(nextCalled).toBe(true);
  return Object.fromEntries(
    Object.entries(res.getHeaders()).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value)]),
  );
}

describe('the helmet headers patch', () => {
  it('runs on a helmet version it was checked against', () => {
    const version = installedVersion(CHECKED.package);
    expect(
      withinChecked(version, CHECKED),
      `${CHECKED.package} ${version} is outside ${CHECKED.from} - <${CHECKED.below}: recheck src/patches/helmet-headers.ts`,
    ).toBe(true);
  });

  it("finds helmet's middleware reading nothing of the request, only setHeader and removeHeader of the response, and calling next at once", () => {
    for (const [name, options] of OPTION_SETS) {
      const { touched, nextCalled } = observe(options);
      expect(touched, name).toContain('res.setHeader');
      expect(
        touched.filter((use) => use !== 'res.setHeader' && use !== 'res.removeHeader'),
        name,
      ).toEqual([]);
      expect(nextCalled, name).toBe(true);
    }
  });

  it('records the headers helmet sets on a real response', () => {
    for (const [name, options] of OPTION_SETS) {
      const recorded = helmetHeaders(options);
      expect(Object.keys(recorded).length, name).toBeGreaterThan(3);
      expect(recorded, name).toEqual(onRealResponse(options));
    }
    expect(helmetHeaders(API_HELMET)).toMatchObject({
      'content-security-policy': "default-src 'none';frame-ancestors 'none';base-uri 'none';form-action 'none'",
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
    });
  });
});
