import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../../src/config.js';
import { emitEvent } from '../../../src/modules/events/emit-repository.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { expectError, expectRoleRefused } from '../../support/expect.js';
import { loadRefs, type Refs, transportBody } from '../transports/fixtures.js';
import { type Receiver, startReceiver } from './receiver.js';

let t: TestApp;
let refs: Refs;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  // The worker on, polling every 100 ms; retries 50 ms apart (doubling), answers within 2 s.
  const webhooks = Object.assign({}, testConfig().webhooks, { pollIntervalMs: 100, retryBaseMs: 50, timeoutMs: 2000 });
  t = await createTestApp({ webhooks });
  refs = await loadRefs(t);
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

async function subscribe(eventTypes: string[], url = receiver.url) {
  const res = await t.call('createWebhook', {
    token: await t.token('supervisor'),
    body: { url, eventTypes: eventTypes as never, description: 'QA receiver' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const { secret } = res.body.result;
  if (secret === null) throw new Error('a first answer carries the secret');
  return Object.assign(res.body.result, { secret });
}

async function createTransport(loadingPoint: string) {
  const res = await t.call('createTransport', { token: await t.token('agent'), body: transportBody(refs, { loadingPoint }) });
  expect(res.status).toBe(201);
  return res.body.result;
}

const deliveriesOf = async (id: number) =>
  (await t.call('listWebhookDeliveries', { token: await t.token('admin'), params: { id }, query: { limit: 100 } })).body.result.data;

describe('webhook delivery to a real receiver', () => {
  it('delivers a change, signed so that the standardwebhooks package verifies it, and lists the delivery', async () => {
    const sub = await subscribe(['transport.created']);
    expect(sub.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const transport = await createTransport('Delivered dock');
    const event = (await t.db.selectFrom('events').selectAll().where('resource_id', '=', transport.id).executeTakeFirstOrThrow()).public_id;
    await receiver.until(() => receiver.of(event).length > 0);
    const [request] = receiver.of(event);
    const payload = new Webhook(sub.secret).verify(request!.body, request!.headers as Record<string, string>) as {
      id: string;
      type: string;
      data: { id: number; loadingPoint: string };
    };
    expect(payload).toMatchObject({ id: event, type: 'transport.created', resource: { type: 'transport', id: transport.id } });
    expect(payload.data).toEqual(transport);

    const delivery = (await deliveriesOf(sub.id)).find((d: { eventId: string }) => d.eventId === event)!;
    expect(delivery).toMatchObject({ status: 'SUCCEEDED', attempts: 1, responseStatus: 200, lastError: null, nextAttemptAt: null });
    expect(delivery.latencyMs).toBeGreaterThanOrEqual(0);
    // The event log answers the same object as the delivery carried.
    const logged = await t.call('getEvent', { token: await t.token('supervisor'), params: { id: event } });
    expect(logged.body.result).toEqual(JSON.parse(request!.body));
    await t.call('deleteWebhook', { token: await t.token('admin'), params: { id: sub.id } });
  });

  it('sends the same webhook-id a third time to a receiver that failed twice', async () => {
    const sub = await subscribe(['transport.created']);
    receiver.answerWith((r) => (receiver.of(String(r.headers['webhook-id'])).length <= 2 ? 503 : 204));
    const transport = await createTransport('Flaky receiver dock');
    const event = (await t.db.selectFrom('events').select('public_id').where('resource_id', '=', transport.id).executeTakeFirstOrThrow())
      .public_id;
    await receiver.until(() => receiver.of(event).length >= 3);
    const attempts = receiver.of(event);
    expect(attempts.map((r) => r.headers['webhook-id'])).toEqual([event, event, event]);
    // Each attempt is signed anew (its own timestamp), all with the endpoint's secret.
    for (const r of attempts) new Webhook(sub.secret).verify(r.body, r.headers as Record<string, string>);
    await expect
      .poll(async () => (await deliveriesOf(sub.id))[0], { timeout: 90_000 })
      .toMatchObject({
        eventId: event,
        status: 'SUCCEEDED',
        attempts: 3,
        responseStatus: 204,
      });
    receiver.answerWith(() => 200);
    await t.call('deleteWebhook', { token: await t.token('admin'), params: { id: sub.id } });
  });

  it('redelivers an event to one endpoint with the same webhook-id, and rotation invalidates the old secret', async () => {
    const sub = await subscribe(['transport.created']);
    const transport = await createTransport('Redelivered dock');
    const event = (await t.db.selectFrom('events').select('public_id').where('resource_id', '=', transport.id).executeTakeFirstOrThrow())
      .public_id;
    await receiver.until(() => receiver.of(event).length === 1);

    const rotated = await t.call('rotateWebhookSecret', { token: await t.token('supervisor'), params: { id: sub.id } });
    expect(rotated.status).toBe(200);
    expect(rotated.body.result.secret).not.toBe(sub.secret);
    const read = await t.call('getWebhook', { token: await t.token('supervisor'), params: { id: sub.id } });
    expect(read.body.result).not.toHaveProperty('secret');

    const again = await t.call('redeliverEvent', {
      token: await t.token('supervisor'),
      params: { id: event },
      body: { subscriptionId: sub.id },
    });
    expect(again.status).toBe(200);
    // As queued (read in the transaction that queued it: a worker woken by its COMMIT cannot have claimed it yet).
    expect(again.body.result).toEqual([
      expect.objectContaining({ eventId: event, subscriptionId: sub.id, status: 'PENDING', attempts: 0 }),
    ]);
    await receiver.until(() => receiver.of(event).length === 2);
    // Under an Idempotency-Key (the request's own transaction around the handler's): queued again, once.
    const keyed = await t.call('redeliverEvent', {
      token: await t.token('supervisor'),
      params: { id: event },
      body: { subscriptionId: sub.id },
      headers: { 'idempotency-key': `redeliver-${sub.id}` },
    });
    expect(keyed.status, JSON.stringify(keyed.body)).toBe(200);
    expect(keyed.body.result).toEqual([
      expect.objectContaining({ eventId: event, subscriptionId: sub.id, status: 'PENDING', attempts: 0 }),
    ]);
    await receiver.until(() => receiver.of(event).length === 3);
    const second = receiver.of(event)[2]!;
    const headers = second.headers as Record<string, string>;
    expect(new Webhook(rotated.body.result.secret!).verify(second.body, headers)).toMatchObject({ id: event });
    expect(() => new Webhook(sub.secret).verify(second.body, headers)).toThrow(WebhookVerificationError);
    await t.call('deleteWebhook', { token: await t.token('admin'), params: { id: sub.id } });
  });

  it('writes nothing for a transaction that rolls back', async () => {
    const before = await t.db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const sub = await subscribe(['transport.created']);
    await expect(
      t.db.transaction().execute(async (trx) => {
        await emitEvent(trx, 'transport.created', { type: 'transport', id: 1 }, {} as never);
        throw new Error('the change fails after its event was written');
      }),
    ).rejects.toThrow('the change fails');
    const after = await t.db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
    expect(await deliveriesOf(sub.id)).toEqual([]);
    await t.call('deleteWebhook', { token: await t.token('admin'), params: { id: sub.id } });
  });

  it('retries with backoff and, after days of failures, disables the endpoint and tells the administrators', async () => {
    const sub = await subscribe(['complaint.created', 'transport.created']);
    const other = await subscribe(['webhook.disabled']);
    receiver.answerWith((r) => (r.headers['webhook-id'] && JSON.parse(r.body).type === 'transport.created' ? 500 : 200));
    const transport = await createTransport('Never accepted dock');
    const event = (await t.db.selectFrom('events').select('public_id').where('resource_id', '=', transport.id).executeTakeFirstOrThrow())
      .public_id;
    await receiver.until(() => receiver.of(event).length >= 1);
    // Six days later (past WEBHOOK_DISABLE_AFTER_MS, 5 days, and past the 3-day retry window).
    const later = new Date(Date.now() + 6 * 86_400_000);
    await t.db.updateTable('webhook_deliveries').set({ next_attempt_at: new Date() }).where('subscription_id', '=', sub.id).execute();
    await t.app.deliverWebhooksOnce(later);
    const read = await t.call('getWebhook', { token: await t.token('admin'), params: { id: sub.id } });
    expect(read.body.result).toMatchObject({ isActive: false, disabledReason: expect.stringContaining('HTTP 500') });
    expect(read.body.result.disabledAt).not.toBeNull();
    expect((await deliveriesOf(sub.id))[0]).toMatchObject({ status: 'FAILED', responseStatus: 500, nextAttemptAt: null });
    const mails = await t.db.selectFrom('admin_notifications').selectAll().execute();
    const administrators = await t.db
      .selectFrom('users as u')
      .innerJoin('roles as r', 'r.id', 'u.role_id')
      .select('u.email')
      .where('u.is_active', '=', true)
      .where('r.access_level', 'in', ['admin', 'super_admin'])
      .execute();
    expect(administrators.length).toBeGreaterThan(0);
    expect(mails.map((m) => m.recipient).sort()).toEqual(administrators.map((a) => a.email).sort());
    expect(mails[0]!.subject).toBe(`Webhook endpoint ${sub.id} disabled`);
    const disabledEvent = await t.db.selectFrom('events').selectAll().where('type', '=', 'webhook.disabled').executeTakeFirstOrThrow();
    expect(disabledEvent.data).toMatchObject({ id: sub.id, isActive: false });
    await receiver.until(() => receiver.of(disabledEvent.public_id).length === 1);
    // Enabled again by a person: the failure record is cleared.
    const enabled = await t.call('updateWebhook', { token: await t.token('admin'), params: { id: sub.id }, body: { isActive: true } });
    expect(enabled.body.result).toMatchObject({ isActive: true, disabledAt: null, disabledReason: null, failingSince: null });
    receiver.answerWith(() => 200);
    for (const id of [sub.id, other.id]) await t.call('deleteWebhook', { token: await t.token('admin'), params: { id } });
  });
});

describe('who may manage webhooks and read events', () => {
  it('refuses an agent and a team manager', async () => {
    for (const user of ['agent', 'manager'] as const) {
      const token = await t.token(user);
      expectRoleRefused(
        await t.call('createWebhook', { token, body: { url: receiver.url, eventTypes: ['transport.created'] } }),
        'createWebhook',
      );
      expectRoleRefused(await t.call('listEvents', { token }), 'listEvents');
      expectRoleRefused(await t.call('listWebhooks', { token }), 'listWebhooks');
    }
    expect(await t.db.selectFrom('webhook_subscriptions').select('id').where('url', '=', receiver.url).execute()).toEqual([]);
  });

  it('answers 404 for an unknown endpoint or event', async () => {
    const token = await t.token('admin');
    expectError(await t.call('getWebhook', { token, params: { id: 999999 } }), 404, 'RESOURCE_NOT_FOUND', {
      resource: 'webhook',
      id: 999999,
    });
    expectError(await t.call('getEvent', { token, params: { id: 'evt_000000000000000000000000' } }), 404, 'EVENT_NOT_FOUND', {
      eventId: 'evt_000000000000000000000000',
    });
  });
});

describe('who may move a webhook endpoint', () => {
  it('lets its creator and administrators change its URL, and refuses another supervisor', async () => {
    const created = await t.call('createWebhook', {
      token: await t.token('admin'),
      body: { url: receiver.url, eventTypes: ['transport.created'] },
    });
    const id = created.body.result.id;
    const moved = `${receiver.url}?moved=1`;
    const bySupervisor = await t.call('updateWebhook', { token: await t.token('supervisor'), params: { id }, body: { url: moved } });
    expectError(bySupervisor, 403, 'FORBIDDEN', { requiredRoles: ['admin', 'super_admin'] });
    const row = await t.db.selectFrom('webhook_subscriptions').select('url').where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.url).toBe(receiver.url);
    // Other fields stay open to supervisors.
    const paused = await t.call('updateWebhook', { token: await t.token('supervisor'), params: { id }, body: { isActive: false } });
    expect(paused.body.result.isActive).toBe(false);
    const byAdmin = await t.call('updateWebhook', { token: await t.token('admin'), params: { id }, body: { url: moved } });
    expect(byAdmin.body.result.url).toBe(moved);
  });
});
