import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { applyActions, createTransport, loadRefs, type Refs } from '../transports/fixtures.js';
import { entriesOf, entryOf } from './support.js';

const t = useTestApp();
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

describe('audit log: staff changes to transports through /trade', () => {
  it("records a supervisor's update of an agent's transport once, with the fields that changed", async () => {
    const created = await createTransport(t, refs, 'agent', { productLabel: 'Bagged rice' });
    const res = await t.call('updateTransport', {
      token: await t.token('supervisor'),
      params: { id: created.id },
      body: { productLabel: 'Bagged maize', loadingPoint: created.loadingPoint as string },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const entry = await entryOf(t, res);
    expect(entry).toMatchObject({
      action: 'transport.updated',
      actor: { username: 'supervisor', role: 'supervisor' },
      resource: { type: 'transport', id: created.id },
    });
    // The label changed; the loading point was sent unchanged and is not recorded.
    expect(entry.before).toMatchObject({ productLabel: 'Bagged rice' });
    expect(entry.after).toMatchObject({ productLabel: 'Bagged maize' });
    expect(entry.after).not.toHaveProperty('loadingPoint');
    expect(entry.before).not.toHaveProperty('loadingPoint');
  });

  it("records nothing for an agent's change of its own transport, nor for a refused change", async () => {
    const created = await createTransport(t, refs, 'agent');
    const own = await t.call('updateTransport', {
      token: await t.token('agent'),
      params: { id: created.id },
      body: { productLabel: 'Mine' },
    });
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect(await entriesOf(t, own)).toEqual([]);

    // Validated: no longer editable through /trade; the refusal leaves no entry.
    await applyActions(t, created.id, ['VALIDATE']);
    const refused = await t.call('updateTransport', {
      token: await t.token('supervisor'),
      params: { id: created.id },
      body: { productLabel: 'Too late' },
    });
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
    expect(await entriesOf(t, refused)).toEqual([]);
    const row = await t.db.selectFrom('transports').select('product_label').where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(row.product_label).toBe('Mine');
  });

  it("records a supervisor's deletion with the record as it was; an agent's own deletion is not recorded", async () => {
    const byStaff = await createTransport(t, refs, 'agent', { productLabel: 'To remove' });
    const res = await t.call('deleteTransport', { token: await t.token('supervisor'), params: { id: byStaff.id } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const entry = await entryOf(t, res);
    expect(entry).toMatchObject({ action: 'transport.deleted', resource: { type: 'transport', id: byStaff.id }, after: null });
    expect(entry.before).toMatchObject({ id: byStaff.id, productLabel: 'To remove', loadingNumber: byStaff.loadingNumber });
    expect(await t.db.selectFrom('transports').select('id').where('id', '=', byStaff.id).executeTakeFirst()).toBeUndefined();

    const own = await createTransport(t, refs, 'agent');
    const mine = await t.call('deleteTransport', { token: await t.token('agent'), params: { id: own.id } });
    expect(mine.status, JSON.stringify(mine.body)).toBe(200);
    expect(await entriesOf(t, mine)).toEqual([]);
  });
});
