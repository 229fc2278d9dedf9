import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { testConfig } from '../../../src/config.js';
import { emitEvent } from '../../../src/modules/events/emit-repository.js';
import { checkTarget, isReservedAddress } from '../../../src/modules/webhooks/targets.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { type Receiver, startReceiver } from './receiver.js';

let t: TestApp;
let receiver: Receiver;
let port: string;
// Retries far apart: each delivery round makes one attempt per endpoint.
const webhooks = Object.assign({}, testConfig().webhooks, { pollIntervalMs: 0, retryBaseMs: 3_600_000, timeoutMs: 2000, concurrency: 5 });
beforeAll(async () => {
  receiver = await startReceiver();
  port = new URL(receiver.url).port;
  // Endpoints are saved under the development rules (private targets allowed, http allowed).
  t = await createTestApp({ webhooks });
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

const production = { requireHttps: true, allowPrivateTargets: false };

/** Forms of loopback that a host may be written in; the URL parser turns the IPv4 ones into 127.0.0.1. */
const loopbackForms = (scheme: string) => [
  `${scheme}://127.0.0.1:${port}/hooks`,
  `${scheme}://2130706433:${port}/hooks`,
  `${scheme}://0x7f000001:${port}/hooks`,
  `${scheme}://0177.0.0.1:${port}/hooks`,
  `${scheme}://127.1:${port}/hooks`,
  `${scheme}://[::127.0.0.1]:${port}/hooks`,
  `${scheme}://[::ffff:7f00:1]:${port}/hooks`,
  `${scheme}://[2002:7f00:1::]:${port}/hooks`,
  `${scheme}://[64:ff9b::7f00:1]:${port}/hooks`,
  `${scheme}://[2001::7f00:1]:${port}/hooks`,
  `${scheme}://localhost:${port}/hooks`,
];

describe('webhook target addresses', () => {
  it('are classified by ipaddr.js: IPv4-compatible, 6to4, NAT64 and Teredo forms are not public', () => {
    for (const a of [
      '::127.0.0.1',
      '::7f00:1',
      '::8.8.8.8',
      '2002:7f00:1::',
      '2002:808:808::1',
      '64:ff9b::7f00:1',
      '64:ff9b::808:808',
      '2001::1',
      '::ffff:7f00:1',
      '192.0.0.8',
      '198.18.0.1',
      '255.255.255.255',
      '2001:db8::1',
      'not-an-address',
    ]) {
      expect(isReservedAddress(a), a).toBe(true);
    }
    for (const a of ['8.8.8.8', '::ffff:8.8.8.8', '2606:4700::1111', '2a00:1450:4001:80b::200e'])
      expect(isReservedAddress(a), a).toBe(false);
  });

  it('are refused when saved in production, in every literal, encoded and IPv6 form', async () => {
    for (const url of loopbackForms('https')) {
      await expect(checkTarget(url, production), url).rejects.toMatchObject({
        statusCode: 400,
        errors: [expect.stringMatching(/^body\/url must not resolve to a loopback, private, link-local or reserved address/)],
      });
    }
    await expect(checkTarget('https://8.8.8.8/hooks', production)).resolves.toBeUndefined();
  });
});

describe('a worker with the production rules', () => {
  /** Saves each URL as the development server did, emits one event, lets a worker with `rules` deliver it. */
  async function deliverWith(rules: { requireHttps: boolean; allowPrivateTargets: boolean }, urls: string[]) {
    const rows = await t.db
      .insertInto('webhook_subscriptions')
      .values(
        urls.map((url) => ({ url, event_types: '["tutorial.completed"]', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw7fDAHYqIYNk=' })),
      )
      .returning(['id', 'url'])
      .execute();
    const app = await buildApp(testConfig({ webhooks: Object.assign({}, webhooks, rules), seedDemoData: false }), { db: t.db });
    await app.ready();
    try {
      await t.db.transaction().execute((trx) => emitEvent(trx, 'tutorial.completed', { type: 'tutorial', id: 1 }, {} as never));
      await app.deliverWebhooksOnce();
      const deliveries = await t.db
        .selectFrom('webhook_deliveries as d')
        .innerJoin('webhook_subscriptions as s', 's.id', 'd.subscription_id')
        .select(['s.url', 'd.status', 'd.attempts', 'd.response_status', 'd.last_error'])
        .where(
          'd.subscription_id',
          'in',
          rows.map((r) => r.id),
        )
        .orderBy('s.id')
        .execute();
      return deliveries;
    } finally {
      await app.close();
      await t.db
        .deleteFrom('webhook_subscriptions')
        .where(
          'id',
          'in',
          rows.map((r) => r.id),
        )
        .execute();
    }
  }

  it('refuses endpoints saved under the development rules: http, then private addresses written in any form', async () => {
    const before = receiver.received.length;
    const https = loopbackForms('https');
    const deliveries = await deliverWith(production, [...loopbackForms('http'), ...https]);
    expect(deliveries).toHaveLength(loopbackForms('http').length + https.length);
    for (const d of deliveries) {
      expect(d, d.url).toMatchObject({ status: 'PENDING', attempts: 1, response_status: null });
      if (d.url.startsWith('http:')) expect(d.last_error, d.url).toBe('refused: url must use https in production');
      else expect(d.last_error, d.url).toMatch(/^refused: url must not resolve to a loopback|resolves to a reserved address \(/);
    }
    expect(receiver.received.length).toBe(before);
  }, 60_000);

  it('refuses private addresses over http too when only the address rule applies, and delivers once it is lifted', async () => {
    const before = receiver.received.length;
    const strict = await deliverWith({ requireHttps: false, allowPrivateTargets: false }, loopbackForms('http'));
    for (const d of strict) {
      expect(d, d.url).toMatchObject({ status: 'PENDING', attempts: 1, response_status: null });
      expect(d.last_error, d.url).toMatch(/^refused: url must not resolve to a loopback|resolves to a reserved address \(/);
    }
    expect(receiver.received.length).toBe(before);
    // The control case: the development rules deliver the dotted and decimal forms to the receiver.
    const open = await deliverWith({ requireHttps: false, allowPrivateTargets: true }, [
      `http://127.0.0.1:${port}/hooks`,
      `http://2130706433:${port}/hooks`,
    ]);
    expect(open.map((d) => [d.status, d.response_status])).toEqual([
      ['SUCCEEDED', 200],
      ['SUCCEEDED', 200],
    ]);
    expect(receiver.received.length).toBe(before + 2);
  }, 60_000);
});
