/*
 * Receiving the API's webhooks (`@transport-ops/sdk/webhooks`): the union of the events the
 * contract's `webhooks` section declares, and their verification by the `standardwebhooks` package
 * (the Standard Webhooks reference library, the one the server signs with; plain JavaScript, so it
 * runs in Node 20+, Deno, edge runtimes and browsers). A separate entry point: the client's bundle
 * does not carry it (scripts/size.mjs checks).
 */
import { Webhook, WebhookVerificationError as StandardVerificationError } from 'standardwebhooks';
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

/**
 * The request could not be verified: a missing header, a timestamp more than 5 minutes from now
 * (a replay), or no matching signature. `cause` is the standardwebhooks error.
 */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

/** The headers as the plain lower-cased object standardwebhooks reads (the first of repeated values). */
function plainHeaders(headers: HeaderSource): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof (headers as Headers).forEach === 'function' && typeof (headers as Headers).get === 'function') {
    (headers as Headers).forEach((value, key) => {
      out[key.toLowerCase()] = value;
    });
    return out;
  }
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) out[key.toLowerCase()] = first;
  }
  return out;
}

/**
 * Verifies a webhook request per Standard Webhooks and returns its event. `body` is the raw body
 * exactly as received (verify before parsing: re-serialized JSON does not match the signature);
 * `headers` a `Headers` or a plain header object (Node's `req.headers`); `secret` the endpoint's
 * `whsec_...` secret. Rejects with WebhookVerificationError when the request is not authentic or
 * more than 5 minutes old or ahead (the library's tolerance).
 */
export async function verifyWebhook(body: string | Uint8Array, headers: HeaderSource, secret: string): Promise<WebhookEvent> {
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  try {
    // Parsed here rather than by the library: an empty body is not an event.
    new Webhook(secret).verify(text, plainHeaders(headers), { jsonParse: false });
  } catch (error) {
    if (error instanceof StandardVerificationError) throw new WebhookVerificationError((error as Error).message, { cause: error });
    throw error;
  }
  return JSON.parse(text) as WebhookEvent;
}
