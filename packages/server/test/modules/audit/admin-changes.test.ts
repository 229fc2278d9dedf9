import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { createAnnouncement } from '../announcements/helpers.js';
import { fileComplaint, loadRefs, moveTo, type Refs } from '../complaints/fixtures.js';
import { entriesOf, entryOf, storedLog } from './support.js';

const t = useTestApp();
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

const supervisorRole = async () =>
  (await t.db.selectFrom('roles').select('id').where('access_level', '=', 'supervisor').orderBy('id').executeTakeFirstOrThrow()).id;

describe('the audit log of partner API keys', () => {
  it('records a key created and revoked, with the key id of a request made with a key, and never the key', async () => {
    const admin = await t.token('admin');
    const roleId = await supervisorRole();
    const created = await t.call('createApiKey', { token: admin, body: { name: 'Audit ERP', roleId } });
    expect(created.status).toBe(201);
    const key = created.body.result;
    expect(await entryOf(t, created)).toMatchObject({
      action: 'api_key.created',
      actor: { username: 'admin', role: 'admin', apiKeyId: null },
      resource: { type: 'api_key', id: key.id },
      before: null,
      after: { name: 'Audit ERP', roleId, organizationId: null, prefix: key.prefix },
    });

    // A supervisor key changes a complaint: the entry names the key and its service account.
    const { id } = await fileComplaint(t, refs, 'agent');
    const moved = await t.call('changeComplaintStatus', {
      headers: { 'x-api-key': key.key! },
      params: { id },
      body: { status: 'IN_PROGRESS' },
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(await entryOf(t, moved)).toMatchObject({
      action: 'complaint.status_changed',
      actor: { userId: key.userId, username: `apikey-${key.id}`, role: 'supervisor', apiKeyId: key.id },
      before: { status: 'PENDING' },
      after: { status: 'IN_PROGRESS' },
    });

    const revoked = await t.call('revokeApiKey', { token: admin, params: { id: key.id } });
    expect(revoked.status).toBe(200);
    expect(await entryOf(t, revoked)).toMatchObject({ action: 'api_key.revoked', resource: { type: 'api_key', id: key.id } });
    expect(await storedLog(t)).not.toContain(key.key);
  });
});

describe('the audit log of webhook endpoints', () => {
  it('records creation, update, secret rotation and deletion, and never a signing secret', async () => {
    const token = await t.token('supervisor');
    const url = 'http://127.0.0.1:9/audit-hook';
    const created = await t.call('createWebhook', { token, body: { url, eventTypes: ['transport.created'], description: 'Audit hook' } });
    expect(created.status).toBe(201);
    const hook = created.body.result;
    expect(await entryOf(t, created)).toMatchObject({
      action: 'webhook.created',
      resource: { type: 'webhook', id: hook.id },
      after: { url, description: 'Audit hook', eventTypes: ['transport.created'], isActive: true },
    });
    const updated = await t.call('updateWebhook', { token, params: { id: hook.id }, body: { isActive: false, description: 'Audit hook' } });
    expect(updated.status).toBe(200);
    const update = await entryOf(t, updated);
    expect(update).toMatchObject({ action: 'webhook.updated', before: { isActive: true }, after: { isActive: false } });
    expect(Object.keys(update.after!)).toEqual(['isActive']);
    const rotated = await t.call('rotateWebhookSecret', { token, params: { id: hook.id } });
    expect(rotated.status).toBe(200);
    expect(await entryOf(t, rotated)).toMatchObject({
      action: 'webhook.secret_rotated',
      before: { secret: '[redacted]' },
      after: { secret: '[redacted]' },
    });
    const deleted = await t.call('deleteWebhook', { token: await t.token('admin'), params: { id: hook.id } });
    expect(deleted.status).toBe(200);
    expect(await entryOf(t, deleted)).toMatchObject({ action: 'webhook.deleted', before: { url, isActive: false }, after: null });
    const stored = await storedLog(t);
    expect(stored).not.toContain(hook.secret);
    expect(stored).not.toContain(rotated.body.result.secret);
  });
});

describe('the audit log of complaints changed by staff', () => {
  it('records an update, an assignment, status changes and a deletion; not the agent’s own changes', async () => {
    const { id } = await fileComplaint(t, refs, 'agent');
    const supervisor = await t.token('supervisor');
    const update = await t.call('updateAdminComplaint', { token: supervisor, params: { id }, body: { location: 'Gate 7' } });
    expect(update.status).toBe(200);
    expect(await entryOf(t, update)).toMatchObject({
      action: 'complaint.updated',
      resource: { type: 'complaint', id },
      before: { location: null },
      after: { location: 'Gate 7' },
    });
    const assigned = await t.call('assignComplaint', { token: supervisor, params: { id }, body: { userId: refs.user('manager') } });
    expect(await entryOf(t, assigned)).toMatchObject({
      action: 'complaint.assigned',
      before: { userId: null },
      after: { userId: refs.user('manager') },
    });
    const agentMove = await t.call('updateComplaintStatus', {
      token: await t.token('agent'),
      params: { id },
      body: { status: 'IN_PROGRESS' },
    });
    expect(agentMove.status).toBe(200);
    expect(await entriesOf(t, agentMove)).toEqual([]);
    const reject = await t.call('changeComplaintStatus', {
      token: supervisor,
      params: { id },
      body: { status: 'REJECTED', comment: 'Duplicate of an earlier complaint' },
    });
    expect(reject.status, JSON.stringify(reject.body)).toBe(200);
    expect(await entryOf(t, reject)).toMatchObject({
      action: 'complaint.status_changed',
      before: { status: 'IN_PROGRESS' },
      after: { status: 'REJECTED' },
      details: { comment: 'Duplicate of an earlier complaint' },
    });
    const deleted = await t.call('deleteAdminComplaint', { token: await t.token('admin'), params: { id } });
    expect(deleted.status).toBe(200);
    expect(await entryOf(t, deleted)).toMatchObject({
      action: 'complaint.deleted',
      before: { status: 'REJECTED', location: 'Gate 7', userId: refs.user('manager') },
      after: null,
    });
  });

  it('records nothing for a refused change', async () => {
    const { id } = await fileComplaint(t, refs, 'agent');
    await moveTo(t, id, ['IN_PROGRESS']);
    const refused = await t.call('deleteAdminComplaint', { token: await t.token('admin'), params: { id } });
    expect(refused.status).toBe(409);
    expect(refused.body.errors).toMatchObject({ code: 'NOT_EDITABLE' });
    expect(await entriesOf(t, refused)).toEqual([]);
  });
});

describe('the audit log of announcements', () => {
  it('records creation, update, archive, publication and deletion', async () => {
    const admin = await t.token('admin');
    const announcement = await createAnnouncement(t, { status: 'DRAFT' });
    const { id } = announcement;
    const list = await t.call('listAuditLog', { token: admin, query: { resourceType: 'announcement', resourceId: id } });
    expect(list.body.result.data).toHaveLength(1);
    expect(list.body.result.data[0]).toMatchObject({
      action: 'announcement.created',
      before: null,
      after: { title: announcement.title, status: 'DRAFT', priority: 'MEDIUM' },
    });
    const updated = await t.call('updateAnnouncement', { token: admin, params: { id }, body: { priority: 'HIGH' } });
    expect(updated.status).toBe(200);
    const update = await entryOf(t, updated);
    expect(update).toMatchObject({ action: 'announcement.updated', before: { priority: 'MEDIUM' }, after: { priority: 'HIGH' } });
    expect(Object.keys(update.after!)).toEqual(['priority']);
    const published = await t.call('publishAnnouncement', { token: admin, params: { id } });
    expect(await entryOf(t, published)).toMatchObject({
      action: 'announcement.published',
      before: { status: 'DRAFT' },
      after: { status: 'PUBLISHED' },
    });
    const archived = await t.call('archiveAnnouncement', { token: admin, params: { id } });
    expect(await entryOf(t, archived)).toMatchObject({
      action: 'announcement.archived',
      before: { status: 'PUBLISHED' },
      after: { status: 'ARCHIVED' },
    });
    const deleted = await t.call('deleteAnnouncement', { token: admin, params: { id } });
    expect(deleted.status).toBe(200);
    expect(await entryOf(t, deleted)).toMatchObject({ action: 'announcement.deleted', before: { title: announcement.title }, after: null });
  });

  it('records each announcement of a bulk action, all with the request id', async () => {
    const a = await createAnnouncement(t, { status: 'DRAFT' });
    const b = await createAnnouncement(t, { status: 'DRAFT' });
    const res = await t.call('bulkActionAnnouncements', {
      token: await t.token('admin'),
      body: { action: 'PUBLISH', ids: [a.id, b.id, 999_999] },
    });
    expect(res.body.result.processed).toEqual([a.id, b.id]);
    const entries = await entriesOf(t, res);
    expect(entries.map((e) => [e.action, e.resource.id])).toEqual([
      ['announcement.published', b.id],
      ['announcement.published', a.id],
    ]);
  });
});
