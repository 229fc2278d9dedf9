import { describe, expect, it } from 'vitest';
import { loadContract } from '../../src/contract.js';
import type { OperationId } from '../../src/http/handlers.js';
import { type DemoUser, useTestApp } from '../support/app.js';
import { componentValidator, deref, operations } from '../support/contract.js';
import { expectInvalid } from '../support/expect.js';

const t = useTestApp();
const envelope = componentValidator('ErrorEnvelope');
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const ABSENT_ID = 2147483647;

/** A demo user holding one of the roles an operation admits (public operations: none). */
const USER_OF_ROLE: [string, DemoUser][] = [
  ['admin', 'admin'],
  ['supervisor', 'supervisor'],
  ['team_manager', 'manager'],
  ['agent', 'agent'],
];
function callerOf(operation: { security?: Record<string, string[]>[] }): DemoUser | null | undefined {
  if (operation.security?.length === 0) return null;
  const roles = operation.security?.flatMap((s) => s.bearerAuth ?? []) ?? [];
  return USER_OF_ROLE.find(([role]) => roles.includes(role))?.[1];
}
/** Valid path values naming nothing: an absent integer id, else the parameter's example. */
function params(path: string, operation: object): Record<string, string | number> {
  const declared = [
    ...((loadContract().paths[path] as { parameters?: unknown[] }).parameters ?? []),
    ...((operation as { parameters?: unknown[] }).parameters ?? []),
  ]
    .map((p) => deref(p as Record<string, unknown>))
    .filter((p) => p.in === 'path');
  return Object.fromEntries(
    declared.map((p) => {
      const schema = deref(p.schema);
      return [p.name, schema.type === 'integer' ? ABSENT_ID : (p.example ?? schema.examples?.[0] ?? schema.example)];
    }),
  );
}
const concrete = (path: string, operation: object) => {
  const values = params(path, operation);
  return path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(values[name])));
};

/** Each path of the contract with the methods it declares. */
// The sandbox's paths are unbound outside sandbox mode (test/modules/sandbox/reset.test.ts).
const paths = [...new Set(operations.map((o) => o.path))]
  .filter((path) => !path.startsWith('/sandbox/'))
  .map((path) => {
    const ops = operations.filter((o) => o.path === path);
    return { path, methods: ops.map((o) => o.method), url: concrete(path, ops[0]!.operation) };
  });
/** True when the router sends `method` on `url` to another path's operation (a parameter where `path` has a literal). */
const routedElsewhere = (url: string, path: string, method: string) =>
  paths.some(
    (other) =>
      other.path !== path && other.methods.includes(method) && new RegExp(`^${other.path.replace(/\{\w+\}/g, '[^/]+')}$`).test(url),
  );

describe('405 for a method a known path does not have (RFC 9110 §15.5.6)', () => {
  it('PUT /trade/transports/vehicle-types answers 405 with Allow, in the envelope', async () => {
    const res = await t.app.inject({ method: 'PUT', url: '/trade/transports/vehicle-types', payload: {} });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
    const body = res.json();
    expect(envelope(body), JSON.stringify(envelope.errors)).toBe(true);
    expect(body).toEqual({
      success: false,
      message: 'PUT is not an operation of /trade/transports/vehicle-types',
      result: null,
      errors: { code: 'METHOD_NOT_ALLOWED', method: 'PUT', url: '/trade/transports/vehicle-types', allow: ['GET', 'HEAD', 'OPTIONS'] },
      except: null,
    });
  });

  it.each(paths.filter((p) => p.methods.length < METHODS.length))(
    '$path: every undeclared method answers 405 whose Allow lists exactly the declared ones',
    async ({ path, methods, url }) => {
      const expected = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].filter(
        (m) => methods.includes(m) || m === 'OPTIONS' || (m === 'HEAD' && methods.includes('GET')),
      );
      for (const method of METHODS.filter((m) => !methods.includes(m) && !routedElsewhere(url, path, m))) {
        const res = await t.app.inject({ method: method as 'GET', url });
        expect(res.statusCode, `${method} ${path}: ${res.body}`).toBe(405);
        expect(res.headers.allow).toBe(expected.join(', '));
        expect(res.json().errors).toEqual({ code: 'METHOD_NOT_ALLOWED', method, url, allow: expected });
      }
    },
  );

  it('a path no operation has still answers 404 ROUTE_NOT_FOUND, whatever the method', async () => {
    for (const method of ['GET', 'PUT'] as const) {
      const res = await t.app.inject({ method, url: '/trade/nowhere' });
      expect(res.statusCode).toBe(404);
      expect(res.headers.allow).toBeUndefined();
      expect(res.json().errors).toEqual({ code: 'ROUTE_NOT_FOUND', method, url: '/trade/nowhere' });
    }
  });

  it('HEAD on a GET path answers as GET without a body; a CORS preflight is still answered', async () => {
    const head = await t.app.inject({ method: 'HEAD', url: '/health' });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/trade/transports/vehicle-types',
      headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'GET' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('http://localhost:5173');
  });
});

describe('undeclared query parameters', () => {
  const gets = operations.filter((o) => o.method === 'GET' && callerOf(o.operation as never) !== undefined);

  it('covers every GET of the contract', () => {
    expect(gets.map((o) => o.operationId)).toEqual(operations.filter((o) => o.method === 'GET').map((o) => o.operationId));
  });

  it.each(gets.map((o) => [o.operationId, o] as const))('%s refuses ?foo=1 with 400 naming it', async (operationId, info) => {
    const user = callerOf(info.operation as never);
    const res = await t.call(operationId as OperationId, {
      token: user ? await t.token(user) : null,
      params: params(info.path, info.operation),
      query: { foo: 1 },
    });
    expectInvalid(res, 'querystring/foo is not an accepted field');
  });
});

describe('an operation that declares no body', () => {
  // Operations another test of this file still needs (logging out ends the token) are left out.
  const bodiless = operations.filter(
    (o) =>
      o.method !== 'GET' &&
      !o.operation.requestBody &&
      callerOf(o.operation as never) &&
      o.operationId !== 'logout' &&
      o.path.includes('{'),
  );

  it.each(bodiless.map((o) => [o.operationId, o] as const))(
    '%s takes an empty body whatever its Content-Type: the operation runs (404 for an absent id)',
    async (operationId, info) => {
      const token = await t.token(callerOf(info.operation as never)!);
      for (const contentType of ['application/json', 'text/plain', 'application/xml']) {
        const res = await t.call(operationId as OperationId, {
          token,
          params: params(info.path, info.operation),
          headers: { 'content-type': contentType },
          payload: '',
        });
        expect(res.status, `${contentType}: ${JSON.stringify(res.body)}`).toBe(404);
        expect(res.body).toMatchObject({ success: false, errors: { code: expect.stringMatching(/NOT_FOUND$/) } });
      }
    },
  );

  it('still refuses a body that is not empty in a media type it does not read (415)', async () => {
    const res = await t.call('deleteTransport', {
      token: await t.token('agent'),
      params: { id: ABSENT_ID },
      headers: { 'content-type': 'application/xml' },
      payload: '<x/>',
    });
    expect(res.status).toBe(415);
    expect(res.body.errors).toEqual({ code: 'UNSUPPORTED_MEDIA_TYPE', contentType: 'application/xml' });
  });
});

describe('tag id lists', () => {
  it.each(['searchTutorials', 'listTutorials'] as const)(
    '%s: the pattern of `tags` admits ids up to 2147483647 and refuses the next one',
    async (operationId) => {
      const token = await t.token('agent');
      const query = operationId === 'searchTutorials' ? { q: 'damage photos' } : {};
      const top = await t.call(operationId, { token, query: { ...query, tags: '3,2147483647' } });
      expect(top.status, JSON.stringify(top.body)).toBe(200);
      expect(top.body.success).toBe(true);
      const beyond = await t.call(operationId, { token, query: { ...query, tags: '3,2147483648' } });
      expectInvalid(beyond, /^querystring\/tags must match pattern /);
    },
  );
});
