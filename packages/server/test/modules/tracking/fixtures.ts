import type { TestApp } from '../../support/app.js';
import { applyActions, createTransport, type Refs } from '../transports/fixtures.js';

/** Lyon (loading) and Fos-sur-Mer (unloading), about 270 km apart as the crow flies. */
export const LYON = { latitude: 45.7364, longitude: 4.8357 };
export const FOS = { latitude: 43.4381, longitude: 4.9446 };

/** A transport of `user` created with coordinates (and an unloading window), brought to VALIDATED (or further with `then`). */
export async function trackedTransport(
  t: TestApp,
  refs: Refs,
  user: 'agent' | 'agent2' | 'manager' | 'supervisor' | 'admin' = 'agent',
  then: string[] = [],
  window?: { start: Date; end: Date },
) {
  const created = await createTransport(t, refs, user, {
    loadingCoordinates: LYON,
    unloadingCoordinates: FOS,
    ...(window ? { unloadingWindow: { start: window.start.toISOString(), end: window.end.toISOString() } } : {}),
  });
  await applyActions(t, created.id, ['VALIDATE', ...then]);
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
