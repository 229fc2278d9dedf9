import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { verifyWebhook, type WebhookEvent, WebhookVerificationError } from '../src/webhooks.js';

// The Standard Webhooks specification's own example: secret, message id, timestamp, body and signature.
const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const vector = {
  body: '{"test": 2432232314}',
  headers: {
    'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
    'webhook-timestamp': '1614265330',
    'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
  },
  at: new Date(1614265330 * 1000),
};

/** Signs like the server (HMAC-SHA256 of id.timestamp.body with the decoded secret), independently of the SDK. */
function sign(key: string, id: string, timestamp: number, body: string) {
  const mac = createHmac('sha256', Buffer.from(key.slice('whsec_'.length), 'base64'))
    .update(`${id}.${timestamp}.${body}`)
    .digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${mac}` };
}

/** The clock at the example's time (the library checks the timestamp against Date.now()). */
const atVectorTime = () => vi.useFakeTimers({ toFake: ['Date'], now: vector.at });
afterEach(() => {
  vi.useRealTimers();
});

describe('verifyWebhook (@transport-ops/sdk/webhooks)', () => {
  it('accepts the Standard Webhooks example, from a Headers object, a plain object or bytes', async () => {
    atVectorTime();
    expect(await verifyWebhook(vector.body, vector.headers, secret)).toEqual({ test: 2432232314 });
    expect(await verifyWebhook(vector.body, new Headers(vector.headers), secret)).toEqual({ test: 2432232314 });
    const shouted = Object.fromEntries(Object.entries(vector.headers).map(([k, v]) => [k.toUpperCase(), [v]]));
    expect(await verifyWebhook(new TextEncoder().encode(vector.body), shouted, secret)).toEqual({ test: 2432232314 });
  });

  it('returns a typed event that narrows on its type', async () => {
    const body = JSON.stringify({
      id: 'evt_5f1c0a9e2b7d43e8a1c6f092',
      type: 'tutorial.completed',
      occurredAt: '2026-11-21T09:30:00.412Z',
      resource: { type: 'tutorial', id: 11 },
      data: { tutorialId: 11, userId: 17 },
    });
    const now = Math.floor(Date.now() / 1000);
    const event: WebhookEvent = await verifyWebhook(body, sign(secret, 'evt_5f1c0a9e2b7d43e8a1c6f092', now, body), secret);
    expect(event.type === 'tutorial.completed' ? event.data.tutorialId : null).toBe(11);
  });

  it('refuses another secret, a changed body, a missing header and a timestamp more than 5 minutes old', async () => {
    atVectorTime();
    const other = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD4ib2JIXsXns=';
    await expect(verifyWebhook(vector.body, vector.headers, other)).rejects.toThrow(WebhookVerificationError);
    await expect(verifyWebhook('{"test": 1}', vector.headers, secret)).rejects.toThrow('No matching signature');
    const { 'webhook-signature': _dropped, ...unsigned } = vector.headers;
    await expect(verifyWebhook(vector.body, unsigned, secret)).rejects.toThrow('Missing required headers');
    vi.setSystemTime(vector.at.getTime() + 301_000);
    const late = await verifyWebhook(vector.body, vector.headers, secret).catch((e: unknown) => e);
    expect(late).toBeInstanceOf(WebhookVerificationError);
    expect((late as Error).message).toBe('Message timestamp too old');
  });
});
