import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from '../../../sdk/src/webhooks.js';
import { signedHeaders } from '../../src/modules/webhooks/send.js';

/*
 * What a partner's receiver does with the SDK (`@transport-ops/sdk/webhooks`) to a request signed
 * by the server's own signer (the headers every delivery carries): verified and typed when intact,
 * refused when any signed part was changed.
 */

// A secret of the shape createWebhook hands out (32 random bytes, base64).
const secret = `whsec_${Buffer.from(Array.from({ length: 32 }, (_, i) => (i * 37 + 11) % 256)).toString('base64')}`;
const eventId = 'evt_5f1c0a9e2b7d43e8a1c6f092';
const body = JSON.stringify({
  id: eventId,
  type: 'transport.status_changed',
  occurredAt: '2026-11-21T09:30:00.412Z',
  resource: { type: 'transport', id: 42 },
  data: { fromStatus: 'PENDING', toStatus: 'VALIDATED', validationLevel: 2, transport: { id: 42, loadingNumber: 'LN-42' } },
});

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (e: Error) => ({ type: e.constructor.name, message: e.message }),
  );

describe("the SDK's verifyWebhook on the server's signature", () => {
  it('returns the event of an intact request, typed by its type, from plain or Headers headers', async () => {
    const headers = signedHeaders(secret, eventId, body, new Date());
    const event = await verifyWebhook(body, headers, secret);
    expect(event).toEqual(JSON.parse(body));
    const toStatus = event.type === 'transport.status_changed' ? event.data.toStatus : undefined;
    expect(toStatus).toBe('VALIDATED');
    expect(await verifyWebhook(Buffer.from(body), new Headers(headers), secret)).toEqual(JSON.parse(body));
  });

  it('refuses a changed body, id, timestamp or signature, another secret, and a request older than 5 minutes', async () => {
    const now = new Date();
    const headers = signedHeaders(secret, eventId, body, now);
    const signature = headers['webhook-signature']!;
    // One character of the base64 MAC changed (`v1,` is the version prefix).
    const flipped = `v1,${signature[3] === 'A' ? 'B' : 'A'}${signature.slice(4)}`;
    const otherSecret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const cases = {
      body: verifyWebhook(body.replace('"VALIDATED"', '"REJECTED"'), headers, secret),
      id: verifyWebhook(body, { ...headers, 'webhook-id': 'evt_another' }, secret),
      timestamp: verifyWebhook(body, { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 1) }, secret),
      signature: verifyWebhook(body, { ...headers, 'webhook-signature': flipped }, secret),
      secret: verifyWebhook(body, headers, otherSecret),
      old: verifyWebhook(body, signedHeaders(secret, eventId, body, new Date(now.getTime() - 301_000)), secret),
    };
    const results = Object.fromEntries(await Promise.all(Object.entries(cases).map(async ([k, p]) => [k, await refusal(p)])));
    const noMatch = { type: 'WebhookVerificationError', message: 'No matching signature found' };
    expect(results).toEqual({
      body: noMatch,
      id: noMatch,
      timestamp: noMatch,
      signature: noMatch,
      secret: noMatch,
      old: { type: 'WebhookVerificationError', message: 'Message timestamp too old' },
    });
    await expect(cases.body).rejects.toBeInstanceOf(WebhookVerificationError);
  });
});
