import type { Config } from '../../config.js';
import { metrics, observeDeliveryDelay } from '../../lib/metrics.js';
import { iso } from '../../lib/time.js';
import { inSpan } from '../../lib/tracing.js';
import { emitEvent } from '../events/emit-repository.js';
import { toSubscription } from './mappers.js';
import {
  type ClaimedDelivery,
  claimDue,
  type Db,
  disableSubscription,
  markDelivered,
  markFailed,
  notifyAdministrators,
} from './repository.js';
import { openSecret } from '../../lib/webhook-secrets.js';
import { type AttemptOutcome, sendEvent } from './send.js';

/** Deliveries are retried for this long after they were queued, then FAILED. */
export const RETRY_WINDOW_MS = 3 * 86_400_000;

/**
 * The wait after the `attempt`-th failed attempt: `base` doubled per attempt, drawn between half
 * and one and a half times that (jitter, so that endpoints back up do not get every retry at once).
 */
export function retryDelayMs(base: number, attempt: number, random: () => number = Math.random): number {
  return Math.round(base * 2 ** Math.min(attempt - 1, 30) * (0.5 + random()));
}

export interface DeliveryRound {
  delivered: number;
  retried: number;
  failed: number;
  disabled: number;
}

export type DeliveryOptions = Config['webhooks'] & { now?: Date };

/** Deliveries one lane claims at a time. */
const LANE_BATCH = 5;
/** Claims per round, all lanes together (the next round goes on). */
const MAX_CLAIMS = 200;

/**
 * One round: `concurrency / 5` lanes each claim 5 due deliveries, send them at once and record the
 * outcomes, then claim again, until nothing is due. Lanes run side by side, so a slow endpoint
 * holds its own lane only; the claims skip each other's rows (SKIP LOCKED) as other instances' do.
 */
export async function deliverDue(db: Db, options: DeliveryOptions): Promise<DeliveryRound> {
  const round: DeliveryRound = { delivered: 0, retried: 0, failed: 0, disabled: 0 };
  const batch = Math.min(LANE_BATCH, options.concurrency);
  const lanes = Math.max(1, Math.floor(options.concurrency / batch));
  let claims = 0;
  const lane = async () => {
    while (claims < MAX_CLAIMS) {
      claims += 1;
      const claimed = await claimDue(db, options.now ?? null, options.timeoutMs + 60_000, batch);
      if (claimed.length === 0) return;
      for (const d of claimed) observeDeliveryDelay(d.waited, d.attempts === 1);
      await Promise.all(
        claimed.map((d) =>
          // A span per attempt when tracing is on: its sending and the statements recording it.
          inSpan(
            'webhook delivery',
            {
              'webhook.delivery.id': d.id,
              'webhook.endpoint.id': d.subscription_id,
              'webhook.event.id': d.event_public_id,
              'webhook.attempt': d.attempts,
            },
            async () => {
              const outcome = await attempt(d, options);
              await record(db, d, outcome, options, round);
            },
          ),
        ),
      );
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  return round;
}

/** One attempt: the secret is opened only to sign it (a key missing from the configuration fails the attempt). */
function attempt(d: ClaimedDelivery, options: DeliveryOptions): Promise<AttemptOutcome> {
  let secret: string;
  try {
    secret = openSecret(d.secret, d.secret_key_id, options.secretKeys);
  } catch (error) {
    return Promise.resolve({ ok: false, status: null, latencyMs: 0, error: (error as Error).message });
  }
  return sendEvent(d.url, secret, d.event_public_id, d.body, options);
}

async function record(db: Db, d: ClaimedDelivery, outcome: AttemptOutcome, options: DeliveryOptions, round: DeliveryRound) {
  const at = options.now ?? new Date();
  if (outcome.ok) {
    await markDelivered(db, d, outcome.status!, outcome.latencyMs, at);
    round.delivered += 1;
    metrics.webhookAttempt('delivered');
    return;
  }
  const next = new Date(at.getTime() + retryDelayMs(options.retryBaseMs, d.attempts));
  const final = next.getTime() > new Date(d.created_at).getTime() + RETRY_WINDOW_MS;
  const failingSince = await markFailed(db, d, outcome, at, final ? null : next);
  round[final ? 'failed' : 'retried'] += 1;
  metrics.webhookAttempt(final ? 'failed' : 'retried');
  if (failingSince && at.getTime() - new Date(failingSince).getTime() >= options.disableAfterMs) {
    if (await disable(db, d.subscription_id, outcome, failingSince, at)) round.disabled += 1;
  }
}

/** Disables an endpoint that failed every attempt since `failingSince`, tells the administrators and emits `webhook.disabled`. */
async function disable(db: Db, id: number, outcome: AttemptOutcome, failingSince: Date, at: Date): Promise<boolean> {
  const reason = `Every attempt failed since ${iso(failingSince)} (last: ${outcome.error ?? 'no answer'})`;
  return db.transaction().execute(async (trx) => {
    const row = await disableSubscription(trx, id, reason, at);
    if (!row) return false;
    await notifyAdministrators(
      trx,
      `Webhook endpoint ${row.id} disabled`,
      `The webhook endpoint ${row.id} (${row.url}) was disabled: ${reason}.\n\nFix the receiver, then enable it again with PATCH /admin/webhooks/${row.id} {"isActive": true}; the deliveries still pending resume then.`,
    );
    await emitEvent(trx, 'webhook.disabled', { type: 'webhook', id: row.id }, toSubscription(row));
    return true;
  });
}
