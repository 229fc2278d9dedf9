import type { components } from '@transport-ops/contract';
import type { TransportStatus } from '../../db/schema.js';
import { iso } from '../../lib/time.js';
import { estimate, lateness, type TrackPoint } from './geo.js';
import { toMilestone, toPosition, toWindow } from './mappers.js';
import { type Db, milestoneSummary, recentPositions, trackingRow } from './repository.js';

export type Tracking = components['schemas']['TransportTracking'];

/** Statuses in which a transport is on its way (or about to be): only they have an ETA. */
export const UNDER_WAY: readonly TransportStatus[] = ['VALIDATED', 'IN_PROGRESS', 'ON_HOLD'];

/**
 * A transport's tracking as the contract's `TransportTracking` describes it: last position,
 * distance remaining, ETA, lateness against the unloading window and the last milestone.
 * Undefined when the transport does not exist (the caller checks its scope first). Reads the kept
 * last position (never the history) and the points of the half hour before it.
 */
export async function transportTracking(db: Db, transportId: number, now: Date = new Date()): Promise<Tracking | undefined> {
  return (await trackingState(db, transportId, now))?.tracking;
}

/** The tracking and the ETA last announced by `transport.eta_changed` (null before the first). */
export async function trackingState(
  db: Db,
  transportId: number,
  now: Date = new Date(),
): Promise<{ tracking: Tracking; announcedEta: Date | null } | undefined> {
  const row = await trackingRow(db, transportId);
  if (!row) return undefined;
  const last: TrackPoint | null =
    row.recorded_at === null
      ? null
      : { recordedAt: row.recorded_at, latitude: row.latitude!, longitude: row.longitude!, speedKmh: row.speed_kmh };
  const destination =
    row.unloading_latitude === null || row.unloading_longitude === null
      ? null
      : { latitude: row.unloading_latitude, longitude: row.unloading_longitude };
  const underWay = UNDER_WAY.includes(row.status);
  const recent = last && destination && underWay ? await recentPositions(db, transportId, last.recordedAt) : [];
  const points = recent.map((p) => ({ recordedAt: p.recorded_at, latitude: p.latitude, longitude: p.longitude, speedKmh: p.speed_kmh }));
  const { distanceRemainingKm, speedKmh, speedBasis, eta } = estimate(last, destination, points, underWay);
  const milestones = await milestoneSummary(db, transportId);
  const { late, lateByMinutes } = lateness(row.unloading_window_end, milestones.arrivedAt, eta, now);
  const tracking: Tracking = {
    transportId,
    status: row.status,
    lastPosition:
      row.recorded_at === null
        ? null
        : toPosition({
            recorded_at: row.recorded_at,
            latitude: row.latitude!,
            longitude: row.longitude!,
            speed_kmh: row.speed_kmh,
            heading_deg: row.heading_deg,
            accuracy_m: row.accuracy_m,
          }),
    destination,
    distanceRemainingKm,
    speedKmh,
    speedBasis,
    eta: eta ? iso(eta) : null,
    arrivedAt: milestones.arrivedAt ? iso(milestones.arrivedAt) : null,
    loadingWindow: toWindow(row.loading_window_start, row.loading_window_end),
    unloadingWindow: toWindow(row.unloading_window_start, row.unloading_window_end),
    late,
    lateByMinutes,
    lastMilestone: milestones.last ? toMilestone(milestones.last) : null,
  };
  return { tracking, announcedEta: row.eta_announced_at };
}

