import type { components } from '@transport-ops/contract';
import { ListError } from '../../lib/errors.js';
import { isCheckViolation } from '../../lib/db-errors.js';
import { iso } from '../../lib/time.js';
import { emitEvent } from '../events/emit-repository.js';
import { appendLiveEvents } from '../live/repository.js';
import { toPosition } from './mappers.js';
import { ETA_CHANGE_THRESHOLD_MS } from './geo.js';
import { BACKFILL_DAYS, ensurePositionPartitions } from '../../db/position-partitions.js';
import { trackingState } from './read.js';
import { announceEta, type Db, insertPositions, type PositionRow } from './repository.js';

type PositionInput = components['schemas']['TransportPositionInput'];

/** How far ahead of the server's clock a device's instant may be. */
export const CLOCK_SKEW_MS = 5 * 60_000;

/** 400 naming each point recorded more than BACKFILL_DAYS ago or ahead of the clock (at most 10 named). */
export function checkRecordedAt(positions: readonly PositionInput[], now: Date, field = 'body/positions'): void {
  const earliest = now.getTime() - BACKFILL_DAYS * 86_400_000;
  const latest = now.getTime() + CLOCK_SKEW_MS;
  const errors: string[] = [];
  positions.forEach((p, i) => {
    const t = Date.parse(p.recordedAt);
    if (t < earliest || t > latest) errors.push(`${field}/${i}/recordedAt must lie within the last 7 days and at most 5 minutes ahead`);
  });
  if (errors.length > 10) errors.splice(10, errors.length - 10, `and ${errors.length - 10} more errors (at most 10 are reported)`);
  if (errors.length > 0) throw new ListError(400, 'Validation failed', errors);
}

/** A point whose day partition does not exist (yet): 23514 without a constraint name. */
const isMissingPartition = (error: unknown) => isCheckViolation(error) && /no partition of relation/.test((error as Error).message ?? '');

export interface Ingested {
  accepted: number;
  duplicates: number;
  last: PositionRow | null;
}

/**
 * Stores a batch of positions of one transport and, when it moves the ETA by more than
 * ETA_CHANGE_THRESHOLD_MS from the one last announced (or gives a first one), records the new ETA
 * and sends `transport.eta_changed`, in one transaction; the live stream gets the latest position
 * (and the ETA change). A point landing in a day partition not
 * made yet (the maintenance did not run since midnight) makes the partitions and retries once.
 */
export async function ingestPositions(db: Db, transportId: number, positions: readonly PositionInput[]): Promise<Ingested> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(async (trx) => {
        const { accepted, last } = await insertPositions(trx, transportId, positions);
        if (accepted > 0) {
          // The live stream gets the transport's latest point once per batch, then the ETA event if any.
          await appendLiveEvents(trx, transportId, [{ type: 'position', data: { transportId, accepted, position: toPosition(last!) } }]);
          await announceEtaChange(trx, transportId);
        }
        return { accepted, duplicates: positions.length - accepted, last };
      });
    } catch (error) {
      if (attempt > 1 || !isMissingPartition(error)) throw error;
      const times = positions.map((p) => Date.parse(p.recordedAt));
      await ensurePositionPartitions(db, new Date(Math.min(...times)), new Date(Math.max(...times)));
    }
  }
}

async function announceEtaChange(trx: Db, transportId: number): Promise<void> {
  const state = await trackingState(trx, transportId);
  if (!state) return;
  const { tracking, announcedEta: announced } = state;
  if (!tracking.eta || tracking.distanceRemainingKm === null || tracking.speedKmh === null) return;
  const eta = new Date(tracking.eta);
  if (announced && Math.abs(eta.getTime() - announced.getTime()) <= ETA_CHANGE_THRESHOLD_MS) return;
  if (!(await announceEta(trx, transportId, announced, eta))) return;
  await emitEvent(
    trx,
    'transport.eta_changed',
    { type: 'transport', id: transportId },
    {
      transportId,
      eta: iso(eta),
      previousEta: announced ? iso(announced) : null,
      distanceRemainingKm: tracking.distanceRemainingKm,
      speedKmh: tracking.speedKmh,
      late: tracking.late,
    },
  );
}
