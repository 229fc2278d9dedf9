import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { listOperations } from '../../src/contract.js';
import deprecation, { deprecationHeaders } from '../../src/plugins/deprecation.js';
import { useTestApp } from '../support/app.js';

/** A server with one deprecated and one current operation, routed by operationId as glue routes them. */
async function serverWith(operations: Parameters<typeof deprecationHeaders>[0][]) {
  const app = Fastify();
  await app.register(deprecation, { operations });
  app.get('/old', { schema: { operationId: 'listOldThings' } as object }, async () => ({ success: true }));
  app.get('/old/fail', { schema: { operationId: 'failOldThings' } as object }, async (_req, reply) =>
    reply.code(404).send({ success: false }),
  );
  app.get('/new', { schema: { operationId: 'listThings' } as object }, async () => ({ success: true }));
  await app.ready();
  return app;
}

describe('deprecated operations', () => {
  it('answer Deprecation (RFC 9745 date), Sunset (RFC 8594 HTTP-date) and a deprecation Link, errors included; others answer none', async () => {
    const app = await serverWith([
      { operationId: 'listOldThings', deprecated: true, 'x-deprecated-at': '2026-12-01', 'x-sunset': '2027-06-01T00:00:00Z' },
      { operationId: 'failOldThings', deprecated: true, 'x-deprecated-at': '2026-12-01T12:30:00Z' },
      { operationId: 'listThings' },
    ]);
    const old = await app.inject({ method: 'GET', url: '/old' });
    expect(old.json()).toEqual({ success: true });
    expect(old.headers.deprecation).toBe(`@${Date.UTC(2026, 11, 1) / 1000}`);
    expect(old.headers.sunset).toBe('Tue, 01 Jun 2027 00:00:00 GMT');
    expect(new Date(String(old.headers.sunset)).toISOString()).toBe('2027-06-01T00:00:00.000Z');
    expect(old.headers.link).toBe('</docs#operation/listOldThings>; rel="deprecation"; type="text/html"');

    const failed = await app.inject({ method: 'GET', url: '/old/fail' });
    expect(failed.statusCode).toBe(404);
    expect(failed.headers.deprecation).toBe(`@${Date.UTC(2026, 11, 1, 12, 30) / 1000}`);
    expect(failed.headers.sunset).toBeUndefined();

    const current = await app.inject({ method: 'GET', url: '/new' });
    expect(current.json()).toEqual({ success: true });
    expect([current.headers.deprecation, current.headers.sunset, current.headers.link]).toEqual([undefined, undefined, undefined]);
    await app.close();
  });

  it('refuse to start on a deprecated operation without a date, with a malformed one, or a sunset before the deprecation', () => {
    expect(() => deprecationHeaders({ operationId: 'a', deprecated: true })).toThrow('a: a deprecated operation needs x-deprecated-at');
    expect(() => deprecationHeaders({ operationId: 'b', deprecated: true, 'x-deprecated-at': 'soon' })).toThrow(
      'b: x-deprecated-at must be an RFC 3339 date or date-time, got "soon"',
    );
    expect(() =>
      deprecationHeaders({ operationId: 'c', deprecated: true, 'x-deprecated-at': '2027-01-01', 'x-sunset': '2026-01-01' }),
    ).toThrow('c: x-sunset must come after x-deprecated-at');
    expect(deprecationHeaders({ operationId: 'd', 'x-deprecated-at': '2027-01-01' })).toBeUndefined();
  });
});

describe('the API', () => {
  const t = useTestApp();

  it('sends no deprecation header on an operation in service, and lets browsers read them', async () => {
    const current = listOperations().find((o) => o.operation.operationId === 'getHealth')!;
    expect((current.operation as { deprecated?: boolean }).deprecated).toBeUndefined();
    const health = await t.app.inject({ method: 'GET', url: '/health', headers: { origin: 'http://localhost:5173' } });
    expect(health.json().result.status).toBe('ok');
    expect(health.headers.deprecation).toBeUndefined();
    const exposed = String(health.headers['access-control-expose-headers']).split(/,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(['deprecation', 'sunset', 'link']));
  });
});
