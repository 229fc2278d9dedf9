import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../../src/config.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { fileComplaint, loadRefs, moveTo, type Refs } from '../complaints/fixtures.js';

/** A real SMTP server on a free loopback port: it keeps what it accepts and refuses "bounce" recipients. */
interface Received {
  from: string;
  to: string[];
  raw: string;
}
const received: Received[] = [];
const smtp = new SMTPServer({
  disabledCommands: ['STARTTLS', 'AUTH'],
  logger: false,
  onRcptTo(address, _session, callback) {
    if (address.address.includes('bounce')) return callback(Object.assign(new Error('Recipient address rejected'), { responseCode: 550 }));
    callback();
  },
  onData(stream, session, callback) {
    let raw = '';
    stream.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    stream.on('end', () => {
      received.push({
        from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
        to: session.envelope.rcptTo.map((r) => r.address),
        raw,
      });
      callback();
    });
  },
});

let t: TestApp;
let refs: Refs;
beforeAll(async () => {
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const { port } = smtp.server.address() as AddressInfo;
  const mail = {
    ...testConfig().mail,
    smtpUrl: `smtp://127.0.0.1:${port}`,
    from: 'Transport Ops <ops@transport-ops.example>',
    maxAttempts: 3,
  };
  t = await createTestApp({ mail });
  refs = await loadRefs(t);
});
afterAll(async () => {
  await t?.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

const notificationsOf = async (complaintId: number) =>
  t.db.selectFrom('complaint_notifications').selectAll().where('complaint_id', '=', complaintId).execute();

async function customer(email: string | null, phone: string | null = null) {
  const row = await t.db
    .insertInto('actors')
    .values({ actor_role: 'CUSTOMER', first_name: 'Amandine', last_name: 'Moreau', email, phone })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

describe('notification outbox worker', () => {
  it('sends the resolution e-mail through SMTP and records it SENT, visible to admins', async () => {
    const { id } = await fileComplaint(
      t,
      refs,
      'agent',
      { label: 'Crates of apples bruised' },
      await customer('a.moreau@vallee-fruits.example'),
    );
    await moveTo(t, id, ['IN_PROGRESS', 'RESOLVED']);
    expect((await notificationsOf(id))[0]).toMatchObject({ status: 'QUEUED', attempts: 0, sent_at: null });

    const round = await t.app.processOutboxOnce();
    expect(round.sent).toBeGreaterThanOrEqual(1);
    const mail = received.find((m) => m.to.includes('a.moreau@vallee-fruits.example'));
    expect(mail).toBeDefined();
    expect(mail!.from).toBe('ops@transport-ops.example');
    expect(mail!.raw).toContain('Subject: Your complaint has been resolved: Crates of apples bruised');
    expect(mail!.raw).toContain('Hello Amandine Moreau,');

    const res = await t.call('listComplaintNotifications', { token: await t.token('supervisor'), params: { id } });
    expect(res.body.result).toEqual([
      expect.objectContaining({ status: 'SENT', attempts: 1, lastError: null, sentAt: expect.any(String) }),
    ]);
    const admin = await t.call('listNotifications', { token: await t.token('admin'), query: { status: 'SENT' } });
    expect(admin.status).toBe(200);
    expect(admin.body.result.data).toEqual(
      expect.arrayContaining([expect.objectContaining({ complaintId: id, status: 'SENT', channel: 'EMAIL' })]),
    );
    expect(admin.body.result.data.every((n: { status: string }) => n.status === 'SENT')).toBe(true);

    expect((await t.app.processOutboxOnce()).sent).toBe(0); // sent once, never again
  });

  it('retries a refused e-mail later, then marks it FAILED with the error after the last attempt', async () => {
    const { id } = await fileComplaint(t, refs, 'agent', {}, await customer('bounce@vallee-fruits.example'));
    await moveTo(t, id, ['IN_PROGRESS', 'RESOLVED']);
    await t.app.processOutboxOnce();
    const [first] = await notificationsOf(id);
    expect(first).toMatchObject({ status: 'QUEUED', attempts: 1 });
    expect(first!.last_error).toContain('Recipient address rejected');
    expect(first!.next_attempt_at.getTime()).toBeGreaterThan(Date.now());

    await t.app.processOutboxOnce(); // not due yet: nothing changes
    expect((await notificationsOf(id))[0]!.attempts).toBe(1);

    const later = (minutes: number) => new Date(Date.now() + minutes * 60_000);
    await t.app.processOutboxOnce(later(10));
    await t.app.processOutboxOnce(later(60));
    const [last] = await notificationsOf(id);
    expect(last).toMatchObject({ status: 'FAILED', attempts: 3, sent_at: null });
    const failed = await t.call('listNotifications', { token: await t.token('admin'), query: { status: 'FAILED', channel: 'EMAIL' } });
    expect(failed.body.result.data).toEqual([
      expect.objectContaining({ complaintId: id, status: 'FAILED', attempts: 3, lastError: expect.stringContaining('550') }),
    ]);
    expect(failed.body.result.meta).toEqual({ total: 1, current_page: 1, total_pages: 1, limit: 10 });
  });

  it('delivers what an earlier process queued or left half-done, since the outbox is in the database', async () => {
    const { id } = await fileComplaint(t, refs, 'agent', {}, await customer('restart@vallee-fruits.example'));
    await moveTo(t, id, ['IN_PROGRESS', 'RESOLVED']);
    // As a process that claimed the row and stopped before sending leaves it: one attempt counted, lease over.
    await t.db
      .updateTable('complaint_notifications')
      .set({ attempts: 1, next_attempt_at: new Date(Date.now() - 1000) })
      .where('complaint_id', '=', id)
      .execute();
    await t.app.processOutboxOnce();
    expect((await notificationsOf(id))[0]).toMatchObject({ status: 'SENT', attempts: 2 });
    expect(received.filter((m) => m.to.includes('restart@vallee-fruits.example'))).toHaveLength(1);
  });

  it('leaves SMS notifications queued (no SMS gateway)', async () => {
    const { id } = await fileComplaint(t, refs, 'agent', {}, await customer(null, '+33 6 12 34 56 78'));
    await moveTo(t, id, ['IN_PROGRESS', 'RESOLVED']);
    await t.app.processOutboxOnce(new Date(Date.now() + 3600_000));
    expect((await notificationsOf(id))[0]).toMatchObject({ channel: 'SMS', status: 'QUEUED', attempts: 0 });
  });

  it('shows the outbox to administrators only (403 for a supervisor), and refuses an unknown status filter', async () => {
    const res = await t.call('listNotifications', { token: await t.token('supervisor') });
    expect(res.status).toBe(403);
    expect(res.body.errors).toEqual({ code: 'FORBIDDEN', requiredRoles: ['admin', 'super_admin'] });
    const bad = await t.call('listNotifications', { token: await t.token('admin'), query: { status: 'LOST' } });
    expect(bad.status).toBe(400);
  });
});
