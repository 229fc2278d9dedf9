import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { expectError } from '../../support/expect.js';
import { track, trackedTransport } from '../tracking/fixtures.js';
import { applyActions, createTransport, loadRefs, type Refs } from '../transports/fixtures.js';

const t = useTestApp();
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

async function link(id: number, user: 'agent' | 'agent2' | 'manager' = 'agent', ttlHours?: number) {
  return t.call('createTrackingLink', { token: await t.token(user), params: { id }, ...(ttlHours ? { body: { ttlHours } } : {}) });
}
const view = (token: string) => t.call('getPublicTracking', { params: { token } });

async function recordPositions(id: number, points: object[]) {
  for (let i = 0; i < points.length; i += 500) {
    const res = await t.call('recordTransportPositions', {
      token: await t.token('agent'),
      params: { id },
      body: { positions: points.slice(i, i + 500) } as never,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
  }
}

describe('tracking links (createTrackingLink, listTrackingLinks, revokeTrackingLink)', () => {
  it('makes a 256-bit token shown once, stores only its SHA-256, and lists the link without it', async () => {
    const id = await trackedTransport(t, refs, 'agent', ['START']);
    const before = Date.now();
    const res = await link(id, 'agent', 48);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const created = res.body.result;
    expect(created.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(created.token, 'base64url')).toHaveLength(32);
    expect(created.url).toBe(`https://api.transport-ops.example/track/${created.token}`);
    expect(created).toMatchObject({ transportId: id, revokedAt: null, active: true, createdBy: { username: 'agent' } });
    const ttl = new Date(created.expiresAt).getTime() - before;
    expect(ttl).toBeGreaterThanOrEqual(48 * 3600_000 - 1000);
    expect(ttl).toBeLessThanOrEqual(48 * 3600_000 + 60_000);

    const rows = await t.db.selectFrom('tracking_links').selectAll().where('transport_id', '=', id).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_hash).toBe(sha256(created.token));
    expect(JSON.stringify(rows)).not.toContain(created.token);

    const second = await link(id);
    expect(new Date(second.body.result.expiresAt).getTime() - Date.now()).toBeGreaterThan(167 * 3600_000); // default 7 days
    expect(second.body.result.token).not.toBe(created.token);
    const list = await t.call('listTrackingLinks', { token: await t.token('manager'), params: { id } });
    expect(list.body.result.map((l) => l.id)).toEqual([second.body.result.id, created.id]);
    expect(JSON.stringify(list.body)).not.toContain(created.token);
  });

  it('answers 404 for a transport outside the caller scope and 409 for a cancelled one', async () => {
    const id = await trackedTransport(t, refs);
    expectError(await link(id, 'agent2'), 404, 'TRANSPORT_NOT_FOUND', { transportId: id });
    expectError(await t.call('listTrackingLinks', { token: await t.token('agent2'), params: { id } }), 404, 'TRANSPORT_NOT_FOUND');
    const mine = (await link(id)).body.result;
    const foreign = await t.call('revokeTrackingLink', { token: await t.token('agent2'), params: { id, linkId: mine.id } });
    expectError(foreign, 404, 'TRANSPORT_NOT_FOUND');
    expect((await view(mine.token)).status).toBe(200);

    const cancelled = await createTransport(t, refs, 'agent');
    await applyActions(t, cancelled.id, ['REJECT']);
    expectError(await link(cancelled.id), 409, 'NOT_EDITABLE', { resource: 'transport', id: cancelled.id, status: 'CANCELLED' });
    expect(await t.db.selectFrom('tracking_links').select('id').where('transport_id', '=', cancelled.id).execute()).toEqual([]);
  });

  it('a revoked link answers 410 REVOKED at once, an expired one 410 EXPIRED, an unknown token 404', async () => {
    const id = await trackedTransport(t, refs);
    const made = (await link(id)).body.result;
    const revoked = await t.call('revokeTrackingLink', { token: await t.token('agent'), params: { id, linkId: made.id } });
    expect(revoked.status).toBe(200);
    expect(revoked.body.result).toMatchObject({ id: made.id, active: false, revokedAt: expect.any(String) });
    const again = await t.call('revokeTrackingLink', { token: await t.token('agent'), params: { id, linkId: made.id } });
    expect(again.body.result.revokedAt).toBe(revoked.body.result.revokedAt);
    expectError(await view(made.token), 410, 'TRACKING_LINK_GONE', { reason: 'REVOKED', at: revoked.body.result.revokedAt! });

    const short = (await link(id, 'agent', 1)).body.result;
    expect((await view(short.token)).status).toBe(200);
    const past = new Date(Date.now() - 60_000);
    await t.db.updateTable('tracking_links').set({ expires_at: past }).where('id', '=', short.id).execute();
    expectError(await view(short.token), 410, 'TRACKING_LINK_GONE', { reason: 'EXPIRED', at: past.toISOString() });

    expectError(await view('A'.repeat(43)), 404, 'TRACKING_LINK_NOT_FOUND');
    const missing = await t.call('revokeTrackingLink', { token: await t.token('agent'), params: { id, linkId: 2147483647 } });
    expectError(missing, 404, 'RESOURCE_NOT_FOUND', { resource: 'tracking link', id: 2147483647 });
  });
});

describe('GET /public/tracking/{token} (getPublicTracking)', () => {
  it('shows status, ETA, milestones and the route thinned to 200 points, and none of the personal fields or prices', async () => {
    const id = await createTransport(t, refs, 'agent', {
      chargerEmail: 'marc.dubois@example.com',
      newCustomer: { firstName: 'Lucie', lastName: 'Garnier', email: 'lucie.garnier@example.com', phone: '+33 7 11 22 33 44' },
    }).then(async (created) => {
      await applyActions(t, created.id, ['VALIDATE', 'START']);
      await t.db
        .updateTable('transports')
        .set({ unloading_latitude: 43.4381, unloading_longitude: 4.9446 })
        .where('id', '=', created.id)
        .execute();
      return created.id;
    });
    const points = track(new Date(Date.now() - 10 * 3600_000), 1000);
    await recordPositions(id, points);
    await t.db
      .insertInto('transport_milestones')
      .values([
        {
          transport_id: id,
          type: 'LOADED',
          occurred_at: points[0]!.recordedAt,
          note: 'Loaded by Marc Dubois, call +33 6 45 21 87 90',
          created_by: refs.user('agent'),
        },
        { transport_id: id, type: 'DEPARTED', occurred_at: points[1]!.recordedAt, created_by: refs.user('agent') },
      ])
      .execute();
    const token = (await link(id)).body.result.token;

    const res = await view(token);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const result = res.body.result;
    expect(result).toMatchObject({ status: 'IN_PROGRESS', routePointCount: 1000, destination: { latitude: 43.4381, longitude: 4.9446 } });
    expect(result.eta).not.toBeNull();
    expect(result.distanceRemainingKm).toBeGreaterThan(0);
    expect(result.milestones).toEqual([
      { type: 'LOADED', occurredAt: points[0]!.recordedAt },
      { type: 'DEPARTED', occurredAt: points[1]!.recordedAt },
    ]);
    expect(result.route.length).toBeLessThanOrEqual(200);
    expect(result.route.length).toBeGreaterThan(150);
    expect(result.route[0]!.recordedAt).toBe(points[0]!.recordedAt);
    expect(result.route.at(-1)!.recordedAt).toBe(points[999]!.recordedAt);
    expect(result.lastPosition).toEqual(result.route.at(-1));
    const times = result.route.map((p) => p.recordedAt);
    expect([...times].sort()).toEqual(times);

    // Nothing personal, no price: every personal field of the transport, as its owner reads it.
    const detail = (await t.call('getTransportById', { token: await t.token('agent'), params: { id } })).body.result;
    const personal = [
      detail.chargerFirstName,
      detail.chargerLastName,
      detail.chargerPhone,
      detail.chargerEmail,
      detail.customer!.firstName,
      detail.customer!.lastName,
      detail.customer!.email,
      detail.customer!.phone,
      detail.loadingNumber,
      detail.vehiclePlateNumber,
      detail.loadingPoint,
      detail.unloadingPoint,
      detail.productLabel,
      'agent',
      'Marc',
      '+33',
    ].filter((v): v is string => typeof v === 'string' && v.length > 0);
    expect(personal.length).toBeGreaterThan(10);
    const serialized = res.raw.body;
    for (const value of personal) expect(serialized, value).not.toContain(value);
    for (const key of ['averageUnitPrice', 'totalProductValue', 'price', 'email', 'phone', 'note', 'Name'])
      expect(serialized).not.toContain(key);
    expect(serialized).not.toContain(String(detail.averageUnitPrice));
    expect(serialized).not.toContain(String(detail.totalProductValue));
  });

  it('serves the tracking page at the link url, with a CSP that allows its own inline code and this origin only', async () => {
    const id = await trackedTransport(t, refs);
    const token = (await link(id)).body.result.token;
    const page = await t.app.inject({ method: 'GET', url: `/track/${token}` });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-store');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toMatch(/default-src 'none'; script-src 'sha256-[A-Za-z0-9+/=]+'; style-src 'sha256-[A-Za-z0-9+/=]+'; connect-src 'self'/);
    expect(page.body).toContain('<meta name="viewport"');
    expect(page.body).not.toMatch(/https?:\/\/(?!www\.w3\.org\/2000\/svg)/); // no external address in the document
  });
});
