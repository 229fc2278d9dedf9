import { beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, useTestApp } from '../../support/app.js';
import { expectError } from '../../support/expect.js';
import { createTransport, loadRefs, type Refs } from '../../modules/transports/fixtures.js';

/*
 * Preconditions come after existence and permission (RFC 9110 §13.2.1; the contract's
 * introduction, "Conditional requests"): a write that fails without `If-Match` fails the same way
 * with it, whatever the tag; only a write that would succeed is refused with 412, and then
 * nothing changed. The check costs no quota of its own.
 */

const t = useTestApp();
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

const UNKNOWN = 1_999_999_999;

const transportRow = async (id: number) =>
  t.db.selectFrom('transports').select(['loading_point', 'updated_at']).where('id', '=', id).executeTakeFirst();

describe('404 and 403 before 412', () => {
  it('answers 404 for an unknown id with If-Match, exactly as without it', async () => {
    const token = await t.token('agent');
    const plain = await t.call('updateTransport', { token, params: { id: UNKNOWN }, body: { loadingPoint: 'Nowhere' } });
    expectError(plain, 404, 'TRANSPORT_NOT_FOUND', { transportId: UNKNOWN });
    for (const ifMatch of ['*', '"AAAAAAAAAAAAAAAAAAAAAA"']) {
      const conditional = await t.call('updateTransport', {
        token,
        params: { id: UNKNOWN },
        body: { loadingPoint: 'Nowhere' },
        headers: { 'if-match': ifMatch },
      });
      expect(conditional.status).toBe(404);
      expect(conditional.body).toEqual(plain.body);
    }
    const deleted = await t.call('deleteTransport', { token, params: { id: UNKNOWN }, headers: { 'if-match': '*' } });
    expectError(deleted, 404, 'TRANSPORT_NOT_FOUND', { transportId: UNKNOWN });
  });

  it("answers another agent's write to a transport as without If-Match (404), with a stale or the current tag, and changes nothing", async () => {
    const { id } = await createTransport(t, refs, 'agent');
    const current = (await t.call('getTransportById', { token: await t.token('agent'), params: { id } })).headers.etag as string;
    const before = await transportRow(id);
    const token = await t.token('agent2');
    const plain = await t.call('updateTransport', { token, params: { id }, body: { loadingPoint: 'Xanten' } });
    expectError(plain, 404, 'TRANSPORT_NOT_FOUND', { transportId: id });
    for (const ifMatch of ['*', '"stale"', current]) {
      const conditional = await t.call('updateTransport', {
        token,
        params: { id },
        body: { loadingPoint: 'Xanten' },
        headers: { 'if-match': ifMatch },
      });
      expect(conditional.status, ifMatch).toBe(plain.status);
      expect(conditional.body).toEqual(plain.body);
    }
    expect(await transportRow(id)).toEqual(before);
  });

  it('answers 403 to a supervisor moving an administrator’s webhook, with If-Match stale or current, as without it', async () => {
    const admin = await t.token('admin');
    const url = 'http://127.0.0.1:9/precondition-hook';
    const created = await t.call('createWebhook', { token: admin, body: { url, eventTypes: ['transport.created'] } });
    expect(created.status).toBe(201);
    const id = created.body.result.id;
    const current = (await t.call('getWebhook', { token: admin, params: { id } })).headers.etag as string;
    const token = await t.token('supervisor');
    const body = { url: `${url}?moved=1` };
    const plain = await t.call('updateWebhook', { token, params: { id }, body });
    expectError(plain, 403, 'FORBIDDEN', { requiredRoles: ['admin', 'super_admin'] });
    for (const ifMatch of ['"stale"', current]) {
      const conditional = await t.call('updateWebhook', { token, params: { id }, body, headers: { 'if-match': ifMatch } });
      expect(conditional.status, ifMatch).toBe(403);
      expect(conditional.body).toEqual(plain.body);
    }
    const row = await t.db.selectFrom('webhook_subscriptions').select('url').where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.url).toBe(url);
  });

  it('refuses a write that would succeed with a stale tag: 412, the row read back unchanged', async () => {
    const { id } = await createTransport(t, refs, 'agent');
    const token = await t.token('agent');
    const stale = (await t.call('getTransportById', { token, params: { id } })).headers.etag as string;
    await t.call('updateTransport', { token, params: { id }, body: { loadingPoint: 'Grenoble, Nord' } });
    const before = await transportRow(id);
    const res = await t.call('updateTransport', {
      token,
      params: { id },
      body: { loadingPoint: 'Overwritten' },
      headers: { 'if-match': stale },
    });
    expectError(res, 412, 'PRECONDITION_FAILED', { resource: `/trade/transports/${id}` });
    expect(await transportRow(id)).toEqual(before);
    expect(before?.loading_point).toBe('Grenoble, Nord');
  });
});

describe('the quota of a conditional write', () => {
  it('costs exactly one unit, as the same write without If-Match', async () => {
    const limited = await createTestApp({ rateLimit: { anonymous: 100, user: 50, admin: 50, windowMs: 3600_000 } });
    try {
      const limitedRefs = await loadRefs(limited);
      const token = await limited.token('agent');
      const { id } = await createTransport(limited, limitedRefs, 'agent');
      const remaining = (res: { headers: Record<string, unknown> }) => Number(res.headers['x-ratelimit-remaining']);
      const read = await limited.call('getTransportById', { token, params: { id } });
      const plain = await limited.call('updateTransport', { token, params: { id }, body: { loadingPoint: 'Lyon, A' } });
      expect(plain.status).toBe(200);
      expect(remaining(plain)).toBe(remaining(read) - 1);
      const conditional = await limited.call('updateTransport', {
        token,
        params: { id },
        body: { loadingPoint: 'Lyon, B' },
        headers: { 'if-match': plain.headers.etag as string },
      });
      expect(conditional.status).toBe(200);
      expect(remaining(conditional)).toBe(remaining(plain) - 1);
      const refused = await limited.call('updateTransport', {
        token,
        params: { id },
        body: { loadingPoint: 'Lyon, C' },
        headers: { 'if-match': plain.headers.etag as string },
      });
      expect(refused.status).toBe(412);
      expect(remaining(refused)).toBe(remaining(conditional) - 1);
    } finally {
      await limited.close();
    }
  });
});
