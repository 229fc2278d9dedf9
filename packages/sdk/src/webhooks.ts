/*
 * Receiving the API's webhooks (`@transport-ops/sdk/webhooks`): the union of the events the
 * contract's `webhooks` section declares, and a Standard Webhooks verifier on WebCrypto, so it
 * runs in Node 20+, Deno, edge runtimes and browsers without a dependency. A separate entry point:
 * the client's bundle does not carry it.
 */
import type { webhooks } from './schema.js';

/** Every event type of the contract. */
export type WebhookEventType = keyof webhooks;
/** The payload of each event type, as the contract declares it. */
export type WebhookEventOf<T extends WebhookEventType> = webhooks[T] extends {
  post: { requestBody: { content: { 'application/json': infer E } } };
}
  ? E
  : never;
/** Any event the API sends: narrow on `type` to get its `data`. */
export type WebhookEvent = { [T in WebhookEventType]: WebhookEventOf<T> }[WebhookEventType];

/** The request could not be verified: missing headers, a timestamp out of tolerance, no matching signature. */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

export interface VerifyOptions {
  /** Largest distance between `webhook-timestamp` and now, in seconds (5 minutes by default). */
  toleranceSeconds?: number;
  /** The clock (tests). */
  now?: Date;
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
const toBase64 = (bytes: ArrayBuffer) => btoa(String.fromCharCode(...new Uint8Array(bytes)));

/** Compares two strings in time independent of where they differ. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * Verifies a webhook request per Standard Webhooks and returns its event. `body` is the raw body
 * exactly as received (verify before parsing: re-serialized JSON does not match the signature);
 * `headers` a `Headers` or a plain header object; `secret` the endpoint's `whsec_...` secret.
 * Throws WebhookVerificationError when the request is not authentic or too old (replay).
 */
export async function verifyWebhook(
  body: string | Uint8Array,
  headers: HeaderSource,
  secret: string,
  options: VerifyOptions = {},
): Promise<WebhookEvent> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('Missing webhook-id, webhook-timestamp or webhook-signature');
  const seconds = Number(timestamp);
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (!/^\d+$/.test(timestamp) || Math.abs(now - seconds) > (options.toleranceSeconds ?? 300)) {
    throw new WebhookVerificationError('webhook-timestamp is too far from now');
  }
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const key = await crypto.subtle.importKey(
    'raw',
    fromBase64(secret.startsWith('whsec_') ? secret.slice(6) : secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const expected = toBase64(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${id}.${timestamp}.${text}`)));
  const matches = signatures.split(' ').some((versioned) => {
    const [version, signature] = versioned.split(',');
    return version === 'v1' && signature !== undefined && sameText(signature, expected);
  });
  if (!matches) throw new WebhookVerificationError('No matching signature');
  return JSON.parse(text) as WebhookEvent;
}
