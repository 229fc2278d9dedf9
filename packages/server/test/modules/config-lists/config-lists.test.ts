import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { idsOf } from '../../support/fixtures.js';
import { operationById } from '../../support/contract.js';
import { superAdminToken } from '../users/support.js';
import { cases } from './cases.js';

/** The rules every configuration list shares, checked for each of the seven lists. */
const t = useTestApp();
let root: string;
beforeAll(async () => {
  root = await superAdminToken(t);
});

let counter = 0;
const newSeed = () => `${++counter}${Math.random().toString(36).slice(2, 5)}`;
const flipCase = (text: string) => [...text].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');

describe.each(cases)('configuration list: $name', (c) => {
  const writer = () => (c.writer === 'root' ? root : t.token('supervisor'));
  const deleter = () => (c.deleter === 'root' ? root : t.token('admin'));
  async function create(seed: string): Promise<{ id: number } & Record<string, any>> {
    const res = await t.call(c.ops.create, { token: await writer(), body: await c.body(t, seed) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.result;
  }

  it('creates an active entry that get and list return as created', async () => {
    const body = await c.body(t, newSeed());
    const created = await t.call(c.ops.create, { token: await writer(), body });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ success: true, errors: null, result: { ...body, isActive: true } });
    const { id } = created.body.result;
    const got = await t.call(c.ops.get, { token: await writer(), params: { id } });
    expect(got.body.result).toEqual(created.body.result);
    const listed = await t.call(c.ops.list, { token: await writer(), query: { search: String(body[c.key]), limit: 100 } });
    expect(idsOf(listed)).toContain(id);
  });

  it(`refuses a ${c.key} already used${c.caseInsensitive ? ', whatever its case,' : ''} with 409 ALREADY_EXISTS`, async () => {
    const body = await c.body(t, newSeed());
    await t.call(c.ops.create, { token: await writer(), body });
    const again = c.caseInsensitive ? { ...body, [c.key]: flipCase(String(body[c.key])) } : body;
    const res = await t.call(c.ops.create, { token: await writer(), body: again });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({ code: 'ALREADY_EXISTS', resource: c.resource, field: c.key, value: again[c.key] });
  });

  it('lets exactly one of two concurrent creations of the same key win', async () => {
    const body = await c.body(t, newSeed());
    const twin = c.caseInsensitive ? { ...body, [c.key]: flipCase(String(body[c.key])) } : body;
    const token = await writer();
    const results = await Promise.all([body, twin].map((b) => t.call(c.ops.create, { token, body: b })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
  });

  it('changes only the fields sent, and refuses the key of another entry with 409, keeping the old one', async () => {
    const [a, b] = [await create(newSeed()), await create(newSeed())];
    const token = await writer();
    const renamed = await t.call(c.ops.update, { token, params: { id: a.id }, body: { name: `Renamed ${a.id}` } });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body.result).toEqual({ ...a, name: `Renamed ${a.id}`, updatedAt: renamed.body.result.updatedAt });
    const taken = await t.call(c.ops.update, { token, params: { id: a.id }, body: { [c.key]: b[c.key] } });
    expect(taken.status).toBe(409);
    expect(taken.body.errors).toMatchObject({ code: 'ALREADY_EXISTS', resource: c.resource, field: c.key });
    expect((await t.call(c.ops.get, { token, params: { id: a.id } })).body.result).toEqual(renamed.body.result);
    if (c.caseInsensitive) {
      const ownCase = await t.call(c.ops.update, { token, params: { id: b.id }, body: { [c.key]: flipCase(b[c.key]) } });
      expect(ownCase.status, JSON.stringify(ownCase.body)).toBe(200);
      expect(ownCase.body.result[c.key]).toBe(flipCase(b[c.key]));
    }
  });

  it('answers 404 RESOURCE_NOT_FOUND for an unknown id on every operation that takes one', async () => {
    const params = { id: 987654 };
    const want = { code: 'RESOURCE_NOT_FOUND', resource: c.resource, id: 987654 };
    const results = [
      await t.call(c.ops.get, { token: await writer(), params }),
      await t.call(c.ops.update, { token: await writer(), params, body: { name: 'Nowhere' } }),
      await t.call(c.ops.status, { token: await writer(), params, body: { isActive: false } }),
      await t.call(c.ops.remove, { token: await deleter(), params }),
    ];
    for (const res of results) {
      expect(res.status).toBe(404);
      expect(res.body.errors).toEqual(want);
    }
  });

  it('deactivates and reactivates an entry; setting the current value again changes nothing', async () => {
    const entry = await create(newSeed());
    const token = await writer();
    const off = await t.call(c.ops.status, { token, params: { id: entry.id }, body: { isActive: false } });
    expect(off.body).toMatchObject({ success: true, result: { id: entry.id, isActive: false } });
    const again = await t.call(c.ops.status, { token, params: { id: entry.id }, body: { isActive: false } });
    expect(again.body.result).toEqual(off.body.result);
    const inactive = await t.call(c.ops.list, { token, query: { isActive: false, limit: 100 } });
    expect(inactive.body.result.data.every((e: { isActive: boolean }) => !e.isActive)).toBe(true);
    expect(idsOf(inactive)).toContain(entry.id);
    const active = await t.call(c.ops.list, { token, query: { isActive: true, limit: 100 } });
    expect(active.body.result.data.every((e: { isActive: boolean }) => e.isActive)).toBe(true);
    expect(idsOf(active)).not.toContain(entry.id);
    const on = await t.call(c.ops.status, { token, params: { id: entry.id }, body: { isActive: true } });

    expect(on.body.result).toMatchObject({ id: entry.id, isActive: true });
  });

  it('deletes an unused entry once: the loser of two concurrent deletes gets 404', async () => {
    const entry = await create(newSeed());
    const token = await deleter();
    const results = await Promise.all([1, 2].map(() => t.call(c.ops.remove, { token, params: { id: entry.id } })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 404]);
    expect(results.find((r) => r.status === 200)!.body).toMatchObject({ success: true, result: null });
    expect((await t.call(c.ops.get, { token, params: { id: entry.id } })).status).toBe(404);
  });

  it.skipIf(!c.inUse)('refuses to delete an entry still referred to with 409 RESOURCE_IN_USE and its usage count', async () => {
    const { id, usageCount } = await c.inUse!(t, create);
    const res = await t.call(c.ops.remove, { token: await deleter(), params: { id } });
    expect(res.status).toBe(409);
    expect(res.body.errors).toMatchObject({ code: 'RESOURCE_IN_USE', resource: c.resource, id });
    expect(res.body.errors.usageCount).toBeGreaterThanOrEqual(usageCount);
    expect((await t.call(c.ops.get, { token: await writer(), params: { id } })).status).toBe(200);
  });

  it('pages the list with its meta', async () => {
    await create(newSeed());
    await create(newSeed());
    const token = await writer();
    const all = await t.call(c.ops.list, { token, query: { limit: 100 } });
    const second = await t.call(c.ops.list, { token, query: { limit: 1, page: 2 } });
    const { total } = all.body.result.meta;
    expect(second.body.result.meta).toEqual({ total, current_page: 2, total_pages: total, limit: 1 });
    expect(second.body.result.data).toEqual([all.body.result.data[1]]);
  });

  it('refuses every role the contract does not list with 403 FORBIDDEN, and anonymous callers with 401', async () => {
    const levels = { agent: 'agent', manager: 'team_manager', supervisor: 'supervisor', admin: 'admin' } as const;
    for (const op of Object.values(c.ops)) {
      const allowed = (operationById.get(op)!.operation.security as { bearerAuth: string[] }[])[0]!.bearerAuth;
      const refused = (Object.keys(levels) as (keyof typeof levels)[]).filter((user) => !allowed.includes(levels[user]));
      expect(refused, `${op} must refuse agents`).toContain('agent');
      for (const user of refused) {
        const res = await t.call(op, { token: await t.token(user), params: { id: 1 }, body: {} });
        expect(res.status, `${op} as ${user}`).toBe(403);
        expect(res.body.errors).toMatchObject({ code: 'FORBIDDEN' });
      }
      expect((await t.call(op, { params: { id: 1 }, body: {} })).status, `${op} anonymously`).toBe(401);
    }
  });
});
