import { beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, useTestApp } from '../../support/app.js';
import { expectError } from '../../support/expect.js';
import { createTransport, loadRefs, type Refs } from '../../modules/transports/fixtures.js';

/* Conditional requests (the contract's introduction, "Conditional requests"). */

const ETAG = /^"[A-Za-z0-9_-]{22}"$/;

const t = useTestApp();
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

const loadingPoint = async (id: number) =>
  (await t.db.selectFrom('transports').select('loading_point').where('id', '=', id).executeTakeFirstOrThrow()).loading_point;

async function read(id: number, headers: Record<string, string> = {}) {
  return t.call('getTransportById', { token: await t.token('agent'), params: { id }, headers });
}

describe('ETag and If-None-Match on GET', () => {
  it('sends a strong ETag, answers 304 without a body to If-None-Match naming it, and 200 to another tag', async () => {
    const { id } = await createTransport(t, refs, 'agent');
    const first = await read(id);
    expect(first.status).toBe(200);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(ETAG);
    expect((await read(id)).headers.etag).toBe(etag);

    const unchanged = await read(id, { 'if-none-match': etag });
    expect(unchanged.status).toBe(304);
    expect(unchanged.raw.rawPayload.length).toBe(0);
    expect(unchanged.headers.etag).toBe(etag);
    expect((await read(id, { 'if-none-match': `"other", W/${etag}` })).status).toBe(304);

    const other = await read(id, { 'if-none-match': '"not-the-tag"' });
    expect(other.status).toBe(200);
    expect(other.body.result.id).toBe(id);
  });

  it('changes the ETag when the resource changes', async () => {
    const { id } = await createTransport(t, refs, 'agent');
    const before = (await read(id)).headers.etag as string;
    await t.call('updateTransport', { token: await t.token('agent'), params: { id }, body: { loadingPoint: 'Valence, Sud' } });
    const after = await read(id, { 'if-none-match': before });
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(before);
    expect(after.body.result.loadingPoint).toBe('Valence, Sud');
  });

  it('sends an ETag on lookup lists and 304 for them too', async () => {
    const token = await t.token('agent');
    const first = await t.call('listVehicleTypes', { token });
    expect(first.headers.etag).toMatch(ETAG);
    const again = await t.call('listVehicleTypes', { token, headers: { 'if-none-match': first.headers.etag as string } });
    expect(again.status).toBe(304);
  });
});

describe('If-Match on PATCH, PUT and DELETE', () => {
  it('refuses a stale If-Match with 412 PRECONDITION_FAILED and writes nothing', async () => {
    const { id } = await createTransport(t, refs, 'agent');
    const stale = (await read(id)).headers.etag as string;
    await t.call('updateTransport', { token: await t.token('agent'), params: { id }, body: { loadingPoint: 'Grenoble, Nord' } });
    const res = await t.call('updateTransport', {
      token: await t.token('agent'),
      params: { id },
      body: { loadingPoint: 'Overwritten' },
      headers: { 'if-match': stale },
    });
    expectError(res, 412, 'PRECONDITION_FAILED', { resource: `/trade/transports/${id}` });
    expect(await loadingPoint(id)).toBe('Grenoble, Nord');
  });

  it('applies a write whose If-Match is current, and answers the new ETag that the next GET sends', async () => {
    const { id } = await createTransport(t, refs, 'agent');
    const current = (await read(id)).headers.etag as string;
    const res = await t.call('updateTransport', {
      token: await t.token('agent'),
      params: { id },
      body: { loadingPoint: 'Annecy, Est' },
      headers: { 'if-match': current },
    });
    expect(res.status).toBe(200);
    expect(await loadingPoint(id)).toBe('Annecy, Est');
    const next = res.headers.etag as string;
    expect(next).toMatch(ETAG);
    expect(next).not.toBe(current);
    const reread = await read(id);
    expect(reread.headers.etag).toBe(next);
    // The tag of the answer is the one to send with the next write.
    const again = await t.call('updateTransport', {
      token: await t.token('agent'),
      params: { id },
      body: { loadingPoint: 'Annecy, Ouest' },
      headers: { 'if-match': next },
    });
    expect(again.status).toBe(200);
  });

  it('lets exactly one of two concurrent writes based on the same ETag win; the other gets 412', async () => {
    const { id } = await createTransport(t, refs, 'agent');
    const etag = (await read(id)).headers.etag as string;
    const token = await t.token('agent');
    const answers = await Promise.all(
      ['Lyon, A', 'Lyon, B'].map((point) =>
        t.call('updateTransport', { token, params: { id }, body: { loadingPoint: point }, headers: { 'if-match': etag } }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 412]);
    const winner = answers.find((a) => a.status === 200)!;
    expect(await loadingPoint(id)).toBe(winner.body.result.loadingPoint);
  });

  it('keeps writes without If-Match unconditional', async () => {
    const { id } = await createTransport(t, refs, 'agent');
    const res = await t.call('updateTransport', { token: await t.token('agent'), params: { id }, body: { loadingPoint: 'Nice, Port' } });
    expect(res.status).toBe(200);
    expect(res.headers.etag).toMatch(ETAG);
    expect(await loadingPoint(id)).toBe('Nice, Port');
  });

  it('accepts If-Match: * for an existing resource; one the caller cannot read answers 404 as without the header', async () => {
    const { id } = await createTransport(t, refs, 'agent');
    const ok = await t.call('updateTransport', {
      token: await t.token('agent'),
      params: { id },
      body: { loadingPoint: 'Metz' },
      headers: { 'if-match': '*' },
    });
    expect(ok.status).toBe(200);
    const other = await t.call('updateTransport', {
      token: await t.token('agent2'),
      params: { id },
      body: { loadingPoint: 'Xanten' },
      headers: { 'if-match': '*' },
    });
    expectError(other, 404, 'TRANSPORT_NOT_FOUND', { transportId: id });
    expect(await loadingPoint(id)).toBe('Metz');
  });

  it('checks a DELETE against the resource: stale 412 keeps the row, current deletes it and sends no ETag', async () => {
    const { id } = await createTransport(t, refs, 'agent');
    const etag = (await read(id)).headers.etag as string;
    const token = await t.token('agent');
    expectError(await t.call('deleteTransport', { token, params: { id }, headers: { 'if-match': '"stale"' } }), 412, 'PRECONDITION_FAILED');
    expect(await t.db.selectFrom('transports').select('id').where('id', '=', id).executeTakeFirst()).toEqual({ id });
    const res = await t.call('deleteTransport', { token, params: { id }, headers: { 'if-match': etag } });
    expect(res.status).toBe(200);
    expect(res.headers.etag).toBeUndefined();
    expect(await t.db.selectFrom('transports').select('id').where('id', '=', id).executeTakeFirst()).toBeUndefined();
  });

  it('checks a sub-resource write against its resource (PUT /trade/profile/bio against GET /auth/profile) and answers its ETag', async () => {
    const token = await t.token('manager');
    const etag = (await t.call('getProfile', { token })).headers.etag as string;
    expect(etag).toMatch(ETAG);
    const stale = await t.call('updateBio', { token, body: { bio: 'Overwritten' }, headers: { 'if-match': '"stale"' } });
    expectError(stale, 412, 'PRECONDITION_FAILED', { resource: '/auth/profile' });
    const bioOf = async () =>
      (await t.db.selectFrom('users').select('bio').where('username', '=', 'manager').executeTakeFirstOrThrow()).bio;
    const before = await bioOf();
    expect(before).not.toBe('Overwritten');
    const res = await t.call('updateBio', { token, body: { bio: 'Team Alpha lead' }, headers: { 'if-match': etag } });
    expect(res.status).toBe(200);
    expect(await bioOf()).toBe('Team Alpha lead');
    // The answer carries the profile's ETag after the write, as GET /auth/profile sends it.
    expect(res.headers.etag).toBe((await t.call('getProfile', { token })).headers.etag);
  });
});

describe('304 and the hourly quota', () => {
  it('does not count a 304 against the quota, counts a conditional GET answered 200, and refuses when the quota is spent', async () => {
    const limited = await createTestApp({ rateLimit: { anonymous: 100, user: 3, admin: 3, windowMs: 3600_000 } });
    try {
      const token = await limited.token('agent');
      const get = (headers: Record<string, string> = {}) => limited.call('listVehicleTypes', { token, headers });
      const first = await get();
      expect(first.headers['x-ratelimit-remaining']).toBe('2');
      const etag = first.headers.etag as string;
      for (let i = 0; i < 5; i++) expect((await get({ 'if-none-match': etag })).status).toBe(304);
      const second = await get();
      expect(second.status).toBe(200);
      expect(second.headers['x-ratelimit-remaining']).toBe('1');
      // Answered 200 (another tag): counted after the answer.
      expect((await get({ 'if-none-match': '"stale"' })).status).toBe(200);
      const spent = await get({ 'if-none-match': etag });
      expectError(spent, 429, 'RATE_LIMITED', { limit: 3 });
      expectError(await get(), 429, 'RATE_LIMITED');
    } finally {
      await limited.close();
    }
  });
});
