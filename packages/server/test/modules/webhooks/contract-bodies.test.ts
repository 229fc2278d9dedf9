import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../../src/config.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { webhookEventTypes, webhookValidator } from '../../support/contract.js';
import { createAnnouncement } from '../announcements/helpers.js';
import { JPEG, multipart, pngImage } from '../deliveries/support.js';
import { newMessage, newTopic } from '../forum/helpers.js';
import { track, trackedTransport } from '../tracking/fixtures.js';
import { loadRefs, type Refs } from '../transports/fixtures.js';
import { completeAs, createTutorial } from '../tutorials/support.js';
import { type Receiver, startReceiver } from './receiver.js';

// Every event type the contract's `webhooks` section declares is caused through the API (the
// bodies are assembled by the server and stored as the event's data, then sent by the delivery
// worker), received by a real endpoint, and each delivered body is validated against its schema.

let t: TestApp;
let refs: Refs;
let receiver: Receiver;
let failing: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  failing = await startReceiver();
  failing.answerWith(() => 500);
  const webhooks = Object.assign({}, testConfig().webhooks, { pollIntervalMs: 100, retryBaseMs: 50, timeoutMs: 2000 });
  t = await createTestApp({ webhooks });
  refs = await loadRefs(t);
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
  await failing?.close();
});

async function subscribe(url: string, eventTypes: string[]) {
  const res = await t.call('createWebhook', { token: await t.token('supervisor'), body: { url, eventTypes: eventTypes as never } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.result as { id: number; secret: string };
}

const ok = (res: { status: number; body: unknown }, status: number) => expect(res.status, JSON.stringify(res.body)).toBe(status);

/** The bodies the receiver got, by event type (verified signatures). */
function bodiesByType(secret: string): Map<string, unknown[]> {
  const byType = new Map<string, unknown[]>();
  for (const r of receiver.received) {
    const body = new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as { type: string };
    byType.set(body.type, [...(byType.get(body.type) ?? []), body]);
  }
  return byType;
}

describe('delivered webhook bodies', () => {
  it('cover every event type of the contract, each valid against its webhooks schema', async () => {
    expect(webhookEventTypes.length).toBeGreaterThanOrEqual(12);
    const sub = await subscribe(receiver.url, webhookEventTypes);
    const doomed = await subscribe(failing.url, ['transport.created']);
    const agent = await t.token('agent');
    const supervisor = await t.token('supervisor');

    // transport.created, transport.status_changed (validations, start), then positions (eta_changed),
    // a milestone, a document and a complaint on the same transport, and its proof of delivery.
    const id = await trackedTransport(t, refs, 'agent', ['START'], {
      start: new Date(Date.now() + 3600_000),
      end: new Date(Date.now() + 7200_000),
    });
    ok(
      await t.call('recordTransportPositions', {
        token: agent,
        params: { id },
        body: { positions: track(new Date(Date.now() - 20 * 60_000), 30) } as never,
      }),
      202,
    );
    ok(
      await t.call('recordTransportMilestone', {
        token: agent,
        params: { id },
        body: { type: 'ARRIVED_AT_UNLOADING', occurredAt: new Date(Date.now() - 60_000).toISOString() } as never,
      }),
      201,
    );
    const document = await multipart({ transportId: String(id), documentType: 'OTHER' }, [
      { field: 'files', name: 'note.jpg', bytes: JPEG, type: 'image/jpeg' },
    ]);
    ok(await t.call('uploadTransportDocuments', { token: agent, ...document }), 201);
    const complaint = await t.call('createComplaint', { token: agent, body: { transportId: id, label: 'Pallets crushed at unloading' } });
    ok(complaint, 201);
    ok(
      await t.call('changeComplaintStatus', {
        token: supervisor,
        params: { id: complaint.body.result.id },
        payload: { status: 'IN_PROGRESS' },
      }),
      200,
    );
    const proof = await multipart({ receiverName: 'Claire Martin' }, [
      { field: 'signature', name: 'signature.png', bytes: pngImage(40, 16), type: 'image/png' },
    ]);
    ok(await t.call('createProofOfDelivery', { token: agent, params: { id }, ...proof }), 201);

    // forum.message_reported, announcement.published, tutorial.completed.
    const topic = await newTopic(t, agent);
    const message = await newMessage(t, await t.token('agent2'), topic.id);
    ok(await t.call('reportForumMessage', { token: agent, params: { id: message.id }, body: { reason: 'SPAM' } }), 201);
    const draft = await createAnnouncement(t, { status: 'DRAFT' });
    ok(await t.call('publishAnnouncement', { token: await t.token('admin'), params: { id: draft.id } }), 200);
    await completeAs(t, 'agent', await createTutorial(t));

    // webhook.disabled: the failing endpoint refused the transport for days.
    await failing.until(() => failing.received.length >= 1);
    await t.db.updateTable('webhook_deliveries').set({ next_attempt_at: new Date() }).where('subscription_id', '=', doomed.id).execute();
    await t.app.deliverWebhooksOnce(new Date(Date.now() + 6 * 86_400_000));

    await receiver.until(() => webhookEventTypes.every((type) => bodiesByType(sub.secret).has(type)), 90_000).catch(() => undefined);
    const byType = bodiesByType(sub.secret);
    expect(
      webhookEventTypes.filter((type) => !byType.has(type)),
      'event types never delivered',
    ).toEqual([]);
    const invalid: Array<{ type: string; errors: unknown }> = [];
    for (const [type, bodies] of byType) {
      const validate = webhookValidator(type);
      for (const body of bodies) if (!validate(body)) invalid.push({ type, errors: validate.errors });
    }
    expect(invalid).toEqual([]);
    for (const s of [sub, doomed]) await t.call('deleteWebhook', { token: await t.token('admin'), params: { id: s.id } });
  });
});
