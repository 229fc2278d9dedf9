import type { Config } from '../../config.js';
import { iso } from '../../lib/time.js';
import { emitEvent } from '../events/emit.js';
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

/**
 * One round: claims the due deliveries in batches of `concurrency`, sends each batch at once and
 * records every outcome, until nothing is due (at most 50 batches, then the next round goes on).
 */
export async function deliverDue(db: Db, options: DeliveryOptions): Promise<DeliveryRound> {
  const round: DeliveryRound = { delivered: 0, retried: 0, failed: 0, disabled: 0 };
  for (let batch = 0; batch < 50; batch++) {
    const now = options.now ?? new Date();
    const leaseUntil = new Date(now.getTime() + options.timeoutMs + 60_000);
    const claimed = await claimDue(db, now, leaseUntil, options.concurrency);
    await Promise.all(
      claimed.map(async (d) => {
        const outcome = await sendEvent(d.url, d.secret, d.event_public_id, d.body, options);
        await record(db, d, outcome, options, round);
      }),
    );
    if (claimed.length < options.concurrency) break;
  }
  return round;
}

async function record(db: Db, d: ClaimedDelivery, outcome: AttemptOutcome, options: DeliveryOptions, round: DeliveryRound) {
  const at = options.now ?? new Date();
  if (outcome.ok) {
    await markDelivered(db, d, outcome.status!, outcome.latencyMs, at);
    round.delivered += 1;
    return;
  }
  const next = new Date(at.getTime() + retryDelayMs(options.retryBaseMs, d.attempts));
  const final = next.getTime() > new Date(d.created_at).getTime() + RETRY_WINDOW_MS;
  const failingSince = await markFailed(db, d, outcome, at, final ? null : next);
  round[final ? 'failed' : 'retried'] += 1;
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
