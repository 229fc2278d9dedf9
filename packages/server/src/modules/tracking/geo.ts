/*
 * The arithmetic of tracking: distances on the sphere, the recent speed and the ETA. No SQL, no
 * clock of its own: every function takes the instants it needs, so tests pin them.
 */

const EARTH_RADIUS_KM = 6371.0088;
const rad = (deg: number) => (deg * Math.PI) / 180;

export interface Point {
  latitude: number;
  longitude: number;
}

/** Great-circle distance between two points (haversine), in km. */
export function haversineKm(a: Point, b: Point): number {
  const dLat = rad(b.latitude - a.latitude);
  const dLon = rad(b.longitude - a.longitude);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** The window of points before the last one that the recent speed is averaged over. */
export const RECENT_WINDOW_MS = 30 * 60_000;
/** Below this average the track is taken as stopped or too sparse, and the fallback speed is used. */
export const MIN_RECENT_SPEED_KMH = 5;
export const FALLBACK_SPEED_KMH = 60;
/** An ETA moving by more than this from the one last announced sends `transport.eta_changed`. */
export const ETA_CHANGE_THRESHOLD_MS = 10 * 60_000;

export interface TrackPoint extends Point {
  recordedAt: Date;
  speedKmh: number | null;
}

/**
 * The average speed over `points` (the recent window, any order): the mean of the reported speeds
 * when every point carries one, else the length of the track over its time span. Null when it
 * cannot be told (a single point without speed).
 */
export function recentSpeedKmh(points: readonly TrackPoint[]): number | null {
  if (points.length === 0) return null;
  if (points.every((p) => p.speedKmh !== null)) return points.reduce((sum, p) => sum + p.speedKmh!, 0) / points.length;
  if (points.length < 2) return null;
  const sorted = [...points].sort((a, b) => a.recordedAt.getTime() - b.recordedAt.getTime());
  let km = 0;
  for (let i = 1; i < sorted.length; i++) km += haversineKm(sorted[i - 1]!, sorted[i]!);
  const hours = (sorted.at(-1)!.recordedAt.getTime() - sorted[0]!.recordedAt.getTime()) / 3_600_000;
  return hours > 0 ? km / hours : null;
}

export interface Estimate {
  distanceRemainingKm: number | null;
  speedKmh: number | null;
  speedBasis: 'RECENT' | 'FALLBACK' | null;
  eta: Date | null;
}

/** Distance remaining, the speed used and the ETA from the last position (see TransportTracking in the contract). */
export function estimate(last: TrackPoint | null, destination: Point | null, recent: readonly TrackPoint[], underWay: boolean): Estimate {
  if (!last || !destination) return { distanceRemainingKm: null, speedKmh: null, speedBasis: null, eta: null };
  const distanceRemainingKm = round1(haversineKm(last, destination));
  if (!underWay) return { distanceRemainingKm, speedKmh: null, speedBasis: null, eta: null };
  const measured = recentSpeedKmh(recent);
  const recentOk = measured !== null && measured >= MIN_RECENT_SPEED_KMH;
  const speedKmh = round1(recentOk ? Math.min(measured, 400) : FALLBACK_SPEED_KMH);
  const eta = new Date(last.recordedAt.getTime() + Math.round((distanceRemainingKm / speedKmh) * 3_600_000));
  return { distanceRemainingKm, speedKmh, speedBasis: recentOk ? 'RECENT' : 'FALLBACK', eta };
}

/** Whether the transport is (or was) late against the end of its unloading window, and by how many minutes. */
export function lateness(
  windowEnd: Date | null,
  arrivedAt: Date | null,
  eta: Date | null,
  now: Date,
): { late: boolean | null; lateByMinutes: number | null } {
  if (!windowEnd) return { late: null, lateByMinutes: null };
  const reference = arrivedAt ?? eta ?? now;
  const overMs = reference.getTime() - windowEnd.getTime();
  return { late: overMs > 0, lateByMinutes: overMs > 0 ? Math.ceil(overMs / 60_000) : 0 };
}

export const round1 = (n: number) => Math.round(n * 10) / 10;
