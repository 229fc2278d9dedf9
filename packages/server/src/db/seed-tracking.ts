import type { components } from '@transport-ops/contract';
import type { Kysely } from 'kysely';
import { ensurePositionPartitions } from './position-partitions.js';
import { insertPositions } from './positions.js';
import type { Database, MilestoneType, TransportAction, TransportStatus } from './schema.js';
import type { Clock } from './seed-organization.js';

/*
 * Demo tracking: two transports of the demo agent followed on the road. T3 (Abidjan port to
 * Yamoussoukro, cocoa beans) is under way: it left the port three hours before the seeding, its
 * positions come every five minutes along the northern motorway up to a minute or two before the
 * seeding, so that its tracking answers a last position, an ETA within its unloading window and a
 * timeline of milestones. T4 (Paris Rungis to Lyon Part-Dieu, completed twelve days ago) was
 * followed from the loading dock to the unloading. Positions go through the ingest's own statement
 * (positions.ts: the points and the latest position), into day partitions made for them.
 */

type PositionInput = components['schemas']['TransportPositionInput'];
interface Point {
  latitude: number;
  longitude: number;
}
interface MilestoneSeed {
  type: MilestoneType;
  at: Date;
  note: string;
  point: Point;
  /** The status move it made, as the API records it (DEPARTED starts, UNLOADED completes). */
  move?: { action: TransportAction; from: TransportStatus; to: TransportStatus };
}
export interface TrackSeed {
  /** When the status actions happened (the others at the seed's usual pace). */
  actionTimes: Partial<Record<TransportAction, Date>>;
  loading: Point;
  unloading: Point;
  loadingWindow: [Date, Date];
  unloadingWindow: [Date, Date];
  milestones: MilestoneSeed[];
  positions: PositionInput[];
}

const MINUTE = 60_000;
const rad = (deg: number) => (deg * Math.PI) / 180;
const deg = (r: number) => (r * 180) / Math.PI;
const p = (latitude: number, longitude: number): Point => ({ latitude, longitude });

function km(a: Point, b: Point): number {
  const h =
    Math.sin(rad(b.latitude - a.latitude) / 2) ** 2 +
    Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.sin(rad(b.longitude - a.longitude) / 2) ** 2;
  return 2 * 6371.0088 * Math.asin(Math.min(1, Math.sqrt(h)));
}

function bearing(a: Point, b: Point): number {
  const y = Math.sin(rad(b.longitude - a.longitude)) * Math.cos(rad(b.latitude));
  const x =
    Math.cos(rad(a.latitude)) * Math.sin(rad(b.latitude)) -
    Math.sin(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.cos(rad(b.longitude - a.longitude));
  return Math.round((deg(Math.atan2(y, x)) + 360) % 360);
}

/** The point `d` km along the road (its waypoints joined by straight stretches), and the heading there. */
function along(road: readonly Point[], d: number): { point: Point; heading: number } {
  let left = d;
  for (let i = 1; i < road.length; i++) {
    const a = road[i - 1]!;
    const b = road[i]!;
    const len = km(a, b);
    if (left <= len || i === road.length - 1) {
      const f = Math.min(1, left / len);
      const point = p(
        Math.round((a.latitude + (b.latitude - a.latitude) * f) * 1e5) / 1e5,
        Math.round((a.longitude + (b.longitude - a.longitude) * f) * 1e5) / 1e5,
      );
      return { point, heading: bearing(a, b) };
    }
    left -= len;
  }
  return { point: road.at(-1)!, heading: 0 };
}

const roadLength = (road: readonly Point[]) => road.slice(1).reduce((sum, b, i) => sum + km(road[i]!, b), 0);

/**
 * Points every `stepMin` minutes from `from` to `to` along `road`, at `speedAt(k)` km/h over step k
 * (deterministic: the demo is the same at every seeding), never past the road's end.
 */
function drive(road: readonly Point[], from: Date, to: Date, stepMin: number, speedAt: (k: number) => number): PositionInput[] {
  const total = roadLength(road);
  const points: PositionInput[] = [];
  let d = 0;
  for (let k = 0, t = from.getTime(); t <= to.getTime(); k++, t += stepMin * MINUTE) {
    const speed = d >= total ? 0 : speedAt(k);
    const { point, heading } = along(road, d);
    points.push({
      latitude: point.latitude,
      longitude: point.longitude,
      recordedAt: new Date(t).toISOString(),
      speedKmh: Math.round(speed),
      headingDeg: heading,
      accuracyM: 4 + (k % 5) * 2,
    });
    d = Math.min(total, d + (speed * stepMin) / 60);
  }
  return points;
}

/** The port of Abidjan to Yamoussoukro by the northern motorway (A3), about 240 km. */
const ABIDJAN_YAMOUSSOUKRO = [
  p(5.29, -4.009),
  p(5.32, -4.02),
  p(5.355, -4.045),
  p(5.39, -4.07),
  p(5.43, -4.12),
  p(5.48, -4.23),
  p(5.58, -4.42),
  p(5.67, -4.57),
  p(5.86, -4.77),
  p(6.08, -4.9),
  p(6.32, -4.97),
  p(6.557, -5.019),
  p(6.7, -5.15),
  p(6.8206, -5.2767),
];
/** Paris Rungis to Lyon Part-Dieu by the A6, about 470 km. */
const RUNGIS_PART_DIEU = [
  p(48.7547, 2.35),
  p(48.63, 2.44),
  p(48.4, 2.6),
  p(48.27, 2.7),
  p(48.05, 3.05),
  p(47.8, 3.57),
  p(47.49, 3.91),
  p(47.26, 4.55),
  p(47.02, 4.84),
  p(46.78, 4.85),
  p(46.31, 4.83),
  p(45.99, 4.72),
  p(45.7605, 4.8597),
];

/** The tracked demo transports by seed key, with times relative to `now` (the seeding) and the seed's clock. */
export function trackSeeds(at: Clock, now: Date): Map<string, TrackSeed> {
  // Whole minutes: the demo's times read well.
  const base = Math.floor(now.getTime() / MINUTE) * MINUTE;
  const ago = (minutes: number) => new Date(base - minutes * MINUTE);
  const port = ABIDJAN_YAMOUSSOUKRO[0]!;
  const yamoussoukro = ABIDJAN_YAMOUSSOUKRO.at(-1)!;
  // Under way: loaded at the port, on the road for three hours, reporting every 5 minutes; slow
  // through the city for the first 25 minutes, then 60 to 75 km/h on the motorway.
  const departedT3 = ago(180);
  const t3: TrackSeed = {
    actionTimes: { START: departedT3 },
    loading: port,
    unloading: yamoussoukro,
    loadingWindow: [ago(270), ago(210)],
    unloadingWindow: [ago(-30), ago(-150)],
    milestones: [
      { type: 'ARRIVED_AT_LOADING', at: ago(245), note: 'At the quay, gate 4.', point: port },
      { type: 'LOADED', at: ago(195), note: '300 bags of cocoa beans on board, sealed.', point: port },
      {
        type: 'DEPARTED',
        at: departedT3,
        note: 'Truck loaded and departed.',
        point: port,
        move: { action: 'START', from: 'VALIDATED', to: 'IN_PROGRESS' },
      },
    ],
    positions: drive(ABIDJAN_YAMOUSSOUKRO, departedT3, ago(2), 5, (k) => (k < 5 ? 25 : 67 + 8 * Math.sin(k / 2))),
  };
  // Completed: left Rungis at 20:00 twelve days ago, at Part-Dieu at 01:40, unloaded by 02:00.
  const rungis = RUNGIS_PART_DIEU[0]!;
  const partDieu = RUNGIS_PART_DIEU.at(-1)!;
  const departedT4 = at(12, 20);
  const arrivedT4 = at(11, 1, 40);
  const t4Speed = (roadLength(RUNGIS_PART_DIEU) / ((arrivedT4.getTime() - departedT4.getTime()) / 3_600_000)) * 1.01;
  const t4: TrackSeed = {
    actionTimes: { START: departedT4, FINISH: at(11, 2) },
    loading: rungis,
    unloading: partDieu,
    loadingWindow: [at(12, 19), at(12, 20)],
    unloadingWindow: [at(11, 1), at(11, 3)],
    milestones: [
      { type: 'ARRIVED_AT_LOADING', at: at(12, 19, 10), note: 'At dock 12.', point: rungis },
      { type: 'LOADED', at: at(12, 19, 50), note: '24 packages, strapped.', point: rungis },
      {
        type: 'DEPARTED',
        at: departedT4,
        note: 'Truck loaded and departed.',
        point: rungis,
        move: { action: 'START', from: 'VALIDATED', to: 'IN_PROGRESS' },
      },
      { type: 'ARRIVED_AT_UNLOADING', at: arrivedT4, note: 'At the delivery bay.', point: partDieu },
      {
        type: 'UNLOADED',
        at: at(11, 2),
        note: 'Delivered and signed for.',
        point: partDieu,
        move: { action: 'FINISH', from: 'IN_PROGRESS', to: 'COMPLETED' },
      },
    ],
    positions: drive(RUNGIS_PART_DIEU, departedT4, arrivedT4, 10, () => t4Speed),
  };
  return new Map([
    ['T3', t3],
    ['T4', t4],
  ]);
}

/** The transport columns of a tracked transport: its points and appointment windows. */
export const trackColumns = (s: TrackSeed) => ({
  loading_latitude: s.loading.latitude,
  loading_longitude: s.loading.longitude,
  unloading_latitude: s.unloading.latitude,
  unloading_longitude: s.unloading.longitude,
  loading_window_start: s.loadingWindow[0],
  loading_window_end: s.loadingWindow[1],
  unloading_window_start: s.unloadingWindow[0],
  unloading_window_end: s.unloadingWindow[1],
});

/** The milestones and positions of a tracked transport, recorded by `userId`. */
export async function seedTrack(db: Kysely<Database>, transportId: number, s: TrackSeed, userId: number): Promise<void> {
  for (const m of s.milestones) {
    await db
      .insertInto('transport_milestones')
      .values({
        transport_id: transportId,
        type: m.type,
        occurred_at: m.at,
        note: m.note,
        latitude: m.point.latitude,
        longitude: m.point.longitude,
        complaint_id: null,
        status_action: m.move?.action ?? null,
        from_status: m.move?.from ?? null,
        to_status: m.move?.to ?? null,
        created_by: userId,
        created_at: m.at,
      })
      .execute();
  }
  const times = s.positions.map((x) => Date.parse(x.recordedAt));
  await ensurePositionPartitions(db, new Date(Math.min(...times)), new Date(Math.max(...times)));
  await insertPositions(db, transportId, s.positions);
}
