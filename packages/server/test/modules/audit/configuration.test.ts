import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { createTransport, loadRefs, type Refs } from '../transports/fixtures.js';
import { entriesOf, entryOf } from './support.js';

const t = useTestApp();
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

describe('the audit log of configuration lists', () => {
  it('records a list entry created, updated, deactivated and deleted (one block for the seven lists)', async () => {
    const token = await t.token('supervisor');
    const created = await t.call('createConfigTag', { token, body: { name: 'Audit tag', color: '#112233' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { id } = created.body.result;
    expect(await entryOf(t, created)).toMatchObject({
      action: 'tag.created',
      resource: { type: 'tag', id },
      before: null,
      after: { name: 'Audit tag', color: '#112233' },
    });
    const updated = await t.call('updateConfigTag', { token, params: { id }, body: { name: 'Audit tag 2', color: '#112233' } });
    expect(updated.status).toBe(200);
    const update = await entryOf(t, updated);
    expect(update).toMatchObject({ action: 'tag.updated', before: { name: 'Audit tag' }, after: { name: 'Audit tag 2' } });
    expect(Object.keys(update.after!)).toEqual(['name']);
    const off = await t.call('setConfigTagStatus', { token, params: { id }, body: { isActive: false } });
    expect(await entryOf(t, off)).toMatchObject({ action: 'tag.deactivated', before: { isActive: true }, after: { isActive: false } });
    const deleted = await t.call('deleteConfigTag', { token: await t.token('admin'), params: { id } });
    expect(deleted.status).toBe(200);
    expect(await entryOf(t, deleted)).toMatchObject({ action: 'tag.deleted', before: { name: 'Audit tag 2' }, after: null });
  });

  it('names a camel-case list in snake case (complaint types)', async () => {
    const created = await t.call('createConfigComplaintType', { token: await t.token('supervisor'), body: { name: 'Audit damage' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(await entryOf(t, created)).toMatchObject({
      action: 'complaint_type.created',
      resource: { type: 'complaint_type', id: created.body.result.id },
    });
  });
});

describe('the audit log of organizations', () => {
  it('records an organization created, moved and deleted', async () => {
    const admin = await t.token('admin');
    const created = await t.call('createOrganization', { token: admin, body: { name: 'Audit team', code: 'AUD-TEAM-1', type: 'TEAM' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { id } = created.body.result;
    expect(await entryOf(t, created)).toMatchObject({
      action: 'organization.created',
      after: { name: 'Audit team', code: 'AUD-TEAM-1', type: 'TEAM', parentId: null, isActive: true },
    });
    const parent = await t.db.selectFrom('organizations').select('id').where('code', '=', 'TOG-FRN-BETA').executeTakeFirstOrThrow();
    const moved = await t.call('updateOrganization', { token: admin, params: { id }, body: { parentId: parent.id } });
    expect(moved.status).toBe(200);
    expect(await entryOf(t, moved)).toMatchObject({
      action: 'organization.updated',
      before: { parentId: null },
      after: { parentId: parent.id },
    });
    const deleted = await t.call('deleteOrganization', { token: admin, params: { id } });
    expect(deleted.status).toBe(200);
    expect(await entryOf(t, deleted)).toMatchObject({ action: 'organization.deleted', before: { code: 'AUD-TEAM-1' }, after: null });
  });

  it('records nothing when the deletion is refused (the entry rolls back with it)', async () => {
    const team = await t.db.selectFrom('organizations').select('id').where('code', '=', 'TOG-FRN-BETA').executeTakeFirstOrThrow();
    const refused = await t.call('deleteOrganization', { token: await t.token('admin'), params: { id: team.id } });
    expect(refused.status).toBe(409);
    expect(refused.body.errors).toMatchObject({ code: 'RESOURCE_IN_USE', resource: 'organization', id: team.id });
    expect(await entriesOf(t, refused)).toEqual([]);
  });
});

describe('the audit log of transports changed by staff', () => {
  it('records a validation, an update, a customer assignment and a deletion; not the agent’s own creation', async () => {
    const created = await createTransport(t, refs, 'agent');
    const { id } = created;
    const manager = await t.call('applyTransportAction', {
      token: await t.token('manager'),
      params: { id },
      body: { action: 'VALIDATE', comment: 'Papers checked' },
    });
    expect(manager.status, JSON.stringify(manager.body)).toBe(200);
    expect(await entryOf(t, manager)).toMatchObject({
      action: 'transport.status_changed',
      actor: { username: 'manager', role: 'team_manager' },
      resource: { type: 'transport', id },
      // Level 1 keeps the status PENDING: only the changed field is recorded.
      before: { validationLevel: 0 },
      after: { validationLevel: 1 },
      details: { action: 'VALIDATE', comment: 'Papers checked' },
    });
    const admin = await t.token('admin');
    const update = await t.call('updateAdminTransport', { token: admin, params: { id }, body: { loadingPoint: 'Audit dock 4' } });
    expect(update.status, JSON.stringify(update.body)).toBe(200);
    expect(await entryOf(t, update)).toMatchObject({
      action: 'transport.updated',
      before: { loadingPoint: created.loadingPoint },
      after: { loadingPoint: 'Audit dock 4' },
    });
    const customerId = refs.customer('Fatou');
    const assigned = await t.call('assignTransportCustomer', { token: admin, params: { id }, body: { customerId } });
    expect(assigned.status, JSON.stringify(assigned.body)).toBe(200);
    expect(await entryOf(t, assigned)).toMatchObject({ action: 'transport.customer_assigned', after: { customerId } });
    const deleted = await t.call('deleteAdminTransport', { token: admin, params: { id } });
    expect(deleted.status).toBe(200);
    expect(await entryOf(t, deleted)).toMatchObject({ action: 'transport.deleted', before: { loadingPoint: 'Audit dock 4' }, after: null });
    const own = await t.call('listAuditLog', { token: admin, query: { resourceType: 'transport', resourceId: id } });
    expect(own.body.result.data.map((e) => e.action)).toEqual([
      'transport.deleted',
      'transport.customer_assigned',
      'transport.updated',
      'transport.status_changed',
    ]);
  });
});

describe('the audit log of actors', () => {
  it('records a customer created, updated, deactivated and deleted, naming the family', async () => {
    const token = await t.token('admin');
    const created = await t.call('createCustomer', {
      token,
      body: { firstName: 'Aude', lastName: 'Itor', email: 'aude.itor@example.test' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { id } = created.body.result;
    expect(await entryOf(t, created)).toMatchObject({
      action: 'actor.created',
      resource: { type: 'actor', id },
      after: { firstName: 'Aude', lastName: 'Itor', email: 'aude.itor@example.test' },
      details: { actorRole: 'CUSTOMER' },
    });
    const updated = await t.call('updateCustomer', { token, params: { id }, body: { phone: '+33612345678' } });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(await entryOf(t, updated)).toMatchObject({ action: 'actor.updated', before: { phone: null }, after: { phone: '+33612345678' } });
    const off = await t.call('deactivateCustomer', { token, params: { id } });
    expect(await entryOf(t, off)).toMatchObject({ action: 'actor.deactivated', before: { isActive: true }, after: { isActive: false } });
    const deleted = await t.call('deleteCustomer', { token, params: { id } });
    expect(deleted.status).toBe(200);
    expect(await entryOf(t, deleted)).toMatchObject({ action: 'actor.deleted', before: { lastName: 'Itor' }, after: null });
  });
});
