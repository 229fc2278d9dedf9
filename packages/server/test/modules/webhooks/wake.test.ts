import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../../src/config.js';
import { emitEvent } from '../../../src/modules/events/emit-repository.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { loadRefs, type Refs, transportBody } from '../transports/fixtures.js';
import { type Receiver, startReceiver } from './receiver.js';

const onPostgres = Boolean(process.env.DATABASE_URL);
const TOKEN = 'scrape-token-0123456789abcdef';

let t: TestApp;
let refs: Refs;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  // The worker on, but its poll a minute apart: whatever arrives sooner was sent because its write committed.
  const webhooks = Object.assign({}, testConfig().webhooks, { pollIntervalMs: 60_000, timeoutMs: 2000 });
  t = await createTestApp({ webhooks, metricsToken: TOKEN });
  refs = await loadRefs(t);
  const sub = await t.call('createWebhook', {
    token: await t.token('supervisor'),
    body: { url: receiver.url, eventTypes: ['transport.created', 'announcement.published'], description: 'wake-up receiver' },
  });
  expect(sub.status).toBe(201);
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

const eventOf = async (transportId: number) =>
  (
    await t.db
      .selectFrom('events')
      .select('public_id')
      .where('resource_type', '=', 'transport')
      .where('resource_id', '=', transportId)
      .executeTakeFirstOrThrow()
  ).public_id;

describe('events leave with their write (poll interval 60 s)', () => {
  it('delivers each event of sparse writes, one write at a time, without waiting for the poll, once each', async () => {
    const agent = await t.token('agent');
    const events: string[] = [];
    for (let i = 0; i < 5; i++) {
      const created = await t.call('createTransport', { token: agent, body: transportBody(refs, { loadingPoint: `Sparse dock ${i}` }) });
      expect(created.status).toBe(201);
      const event = await eventOf(created.body.result.id);
      events.push(event);
      // Well under the poll interval: only the wake-up of its own write can have sent it.
      await receiver.until(() => receiver.of(event).length > 0, 30_000);
    }
    for (const event of events) expect(receiver.of(event)).toHaveLength(1);

    // The commit-to-send delay is measured, one first attempt per event at least.
    const scrape = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    const count = /^webhook_delivery_delay_seconds_count\{attempt="first"\} (\d+)$/m.exec(scrape.body);
    expect(Number(count?.[1])).toBeGreaterThanOrEqual(5);
  });

  it.skipIf(!onPostgres)(
    'delivers an event committed by another process (no request of this instance) when it commits: NOTIFY',
    async () => {
      // A write this instance never answers: a background job's, or another instance's.
      const event = await t.db
        .transaction()
        .execute((trx) => emitEvent(trx, 'announcement.published', { type: 'announcement', id: 1 }, {} as never));
      await receiver.until(() => receiver.of(event).length > 0, 30_000);
      expect(receiver.of(event)).toHaveLength(1);
      expect(JSON.parse(receiver.of(event)[0]!.body)).toMatchObject({ id: event, type: 'announcement.published' });
    },
  );
});
