import { describe, expect, it } from 'vitest';
import { bundled, deref, operations } from './document.js';

/*
 * Idempotent retries and conditional requests are declared, not implied: the server reads these
 * declarations to decide what to do, so an operation that forgets one would silently lose the
 * behaviour the introduction promises. New operations are held to the same rules here.
 */

const headerParams = (op: any): string[] =>
  (op.parameters ?? [])
    .map((p: unknown) => deref(p))
    .filter((p: any) => p.in === 'header')
    .map((p: any) => p.name);
const refOf = (value: any): string | undefined => value?.$ref;
const okResponse = (op: any) => deref(op.responses[Object.keys(op.responses).find((s) => s.startsWith('2'))!]);
const rolesOf = (op: any): string[] => (op.security ?? bundled.security).flatMap((r: Record<string, string[]>) => r.bearerAuth ?? []);

// An operation may opt out (`x-idempotency: false`, `x-conditional: false`) only by saying why in its description.
const keyed = operations.filter(
  ({ method, path, op }) =>
    method === 'POST' && (op.security ?? bundled.security).length > 0 && !path.startsWith('/auth/') && op['x-idempotency'] !== false,
);
const writes = operations.filter(({ method, op }) => ['PATCH', 'PUT', 'DELETE'].includes(method) && op['x-conditional'] !== false);
const optedOut = operations.filter(({ op }) => op['x-idempotency'] === false || op['x-conditional'] === false);
const resultOf = (op: any) => {
  const schema = deref(okResponse(op)?.content?.['application/json']?.schema);
  const parts = schema?.allOf ? schema.allOf.map((p: unknown) => deref(p)) : schema ? [schema] : [];
  return parts.map((p: any) => p.properties?.result).find(Boolean);
};
const unpagedGets = operations.filter(({ method, path, op }) => {
  if (method !== 'GET' || ['/health', '/ready'].includes(path)) return false;
  const result = deref(resultOf(op));
  return result !== undefined && !result.properties?.meta;
});
const getAt = (path: string) => operations.find((o) => o.method === 'GET' && o.path === path);

describe('Idempotency-Key', () => {
  it('is declared once, as an optional header', () => {
    expect(bundled.components.parameters.IdempotencyKey).toMatchObject({ name: 'Idempotency-Key', in: 'header', required: false });
  });

  it.each(keyed.map((o) => [`${o.method} ${o.path}`, o] as const))('%s takes it, with its 409, 422 and replay header', (_, { op }) => {
    // Each keyed operation carries its own copy of the shared header, with its own example (the
    // examples decorator, openapi/plugins/examples.mjs).
    const { example, ...shared } = bundled.components.parameters.IdempotencyKey;
    const own = op.parameters.find((p: any) => p.name === 'Idempotency-Key');
    expect(own).toMatchObject(
      Object.assign({}, shared, {
        example: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      }),
    );
    expect(own.example).not.toBe(example);
    expect(refOf(op.responses['422'])).toBe('#/components/responses/IdempotencyKeyReused');
    expect(op.responses['409']).toBeDefined();
    expect(okResponse(op).headers?.['Idempotent-Replayed']).toEqual({ $ref: '#/components/headers/IdempotentReplayed' });
  });

  it('is left out only by operations that say why', () => {
    expect(optedOut.length).toBeGreaterThan(0);
    for (const { op } of optedOut) {
      if (op['x-idempotency'] === false) expect(op.description).toContain('takes no `Idempotency-Key`');
      if (op['x-conditional'] === false) expect(op.description).toContain('takes no `If-Match`');
      expect(headerParams(op)).not.toContain(op['x-idempotency'] === false ? 'Idempotency-Key' : 'If-Match');
    }
  });

  it('has an example of its own in every operation that takes it', () => {
    const examples = keyed.map(({ op }) => op.parameters.find((p: any) => p.name === 'Idempotency-Key')?.example);
    expect(new Set(examples).size).toBe(keyed.length);
  });

  it('is taken by no other operation', () => {
    const others = operations.filter((o) => !keyed.includes(o) && headerParams(o.op).includes('Idempotency-Key'));
    expect(others.map((o) => `${o.method} ${o.path}`)).toEqual([]);
  });
});

describe('If-Match', () => {
  it.each(writes.map((o) => [`${o.method} ${o.path}`, o] as const))(
    '%s takes it, with its 412, against a resource every caller may read',
    (_, { op, path }) => {
      expect(op.parameters).toContainEqual({ $ref: '#/components/parameters/IfMatch' });
      expect(refOf(op.responses['412'])).toBe('#/components/responses/PreconditionFailed');
      const resource = op['x-etag-resource'] ?? (getAt(path) ? path : path.replace(/\/[^/]+$/, ''));
      const get = getAt(resource);
      expect(get, `no GET ${resource}`).toBeDefined();
      expect(headerParams(get!.op)).toContain('If-None-Match');
      for (const role of rolesOf(op)) expect(rolesOf(get!.op), `${role} may write ${path} but not read ${resource}`).toContain(role);
    },
  );
});

describe('ETag and If-None-Match', () => {
  it.each(unpagedGets.map((o) => [`${o.method} ${o.path}`, o] as const))('%s sends an ETag and may answer 304', (_, { op }) => {
    expect(op.parameters).toContainEqual({ $ref: '#/components/parameters/IfNoneMatch' });
    expect(refOf(op.responses['304'])).toBe('#/components/responses/NotModified');
    expect(okResponse(op).headers?.ETag).toEqual({ $ref: '#/components/headers/ETag' });
  });

  it('covers single resources, summaries and lookup lists, not the paged lists', () => {
    const paths = unpagedGets.map((o) => o.path);
    expect(paths).toEqual(expect.arrayContaining(['/trade/transports/{id}', '/auth/profile', '/trade/transports/vehicle-types']));
    expect(paths).not.toContain('/trade/transports');
  });
});
