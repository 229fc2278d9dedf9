import type { TestApp } from '../../support/app.js';
import { applyActions, createTransport, type Refs } from '../transports/fixtures.js';

/** Lyon (loading) and Fos-sur-Mer (unloading), about 270 km apart as the crow flies. */
export const LYON = { latitude: 45.7364, longitude: 4.8357 };
export const FOS = { latitude: 43.4381, longitude: 4.9446 };

/** A transport of `user` brought to VALIDATED (or further with `then`), with coordinates set in the database. */
export async function trackedTransport(
  t: TestApp,
  refs: Refs,
  user: 'agent' | 'agent2' | 'manager' | 'supervisor' | 'admin' = 'agent',
  then: string[] = [],
  window?: { start: Date; end: Date },
) {
  const created = await createTransport(t, refs, user);
  await applyActions(t, created.id, ['VALIDATE', ...then]);
  await t.db
    .updateTable('transports')
    .set({
      loading_latitude: LYON.latitude,
      loading_longitude: LYON.longitude,
      unloading_latitude: FOS.latitude,
      unloading_longitude: FOS.longitude,
      unloading_window_start: window?.start ?? null,
      unloading_window_end: window?.end ?? null,
    })
    .where('id', '=', created.id)
    .execute();
  return created.id;
}

/** `n` points from `start`, one every `stepS` seconds, heading south from Lyon at about `kmh`. */
export function track(start: Date, n: number, stepS = 30, kmh = 80) {
  const degPerStep = (kmh * (stepS / 3600)) / 111.2;
  return Array.from({ length: n }, (_, i) => ({
    latitude: LYON.latitude - i * degPerStep,
    longitude: LYON.longitude,
    recordedAt: new Date(start.getTime() + i * stepS * 1000).toISOString(),
  }));
}
