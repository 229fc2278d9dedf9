import { beforeAll, describe, expect, it } from 'vitest';
import { errorMessages, useTestApp } from '../../support/app.js';
import { createTransport, loadRefs, type Refs } from '../transports/fixtures.js';
import { FOS, LYON } from './fixtures.js';

const t = useTestApp();
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

describe('coordinates and appointment windows of a transport (createTransport, updateTransport)', () => {
  it('stores what is sent on creation, changes and clears it on update, and answers it on the detail', async () => {
    const window = { start: '2026-12-01T08:00:00.000Z', end: '2026-12-01T10:00:00.000Z' };
    const created = await createTransport(t, refs, 'agent', {
      loadingCoordinates: LYON,
      unloadingCoordinates: FOS,
      unloadingWindow: window,
    });
    expect(created).toMatchObject({ loadingCoordinates: LYON, unloadingCoordinates: FOS, loadingWindow: null, unloadingWindow: window });
    const row = await t.db
      .selectFrom('transports')
      .select(['unloading_latitude', 'unloading_longitude', 'unloading_window_end'])
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      unloading_latitude: FOS.latitude,
      unloading_longitude: FOS.longitude,
      unloading_window_end: new Date(window.end),
    });
    const token = await t.token('agent');
    const loadingWindow = { start: '2026-11-30T06:00:00.000Z', end: '2026-11-30T07:00:00.000Z' };
    const updated = await t.call('updateTransport', {
      token,
      params: { id: created.id },
      body: { unloadingCoordinates: null, loadingWindow },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.result).toMatchObject({
      loadingCoordinates: LYON,
      unloadingCoordinates: null,
      loadingWindow,
      unloadingWindow: window,
    });
    const detail = await t.call('getTransportById', { token, params: { id: created.id } });
    expect(detail.body.result).toMatchObject({ unloadingCoordinates: null, loadingWindow });
  });

  it('refuses a window that ends before it starts and a coordinate out of range, naming them', async () => {
    const token = await t.token('agent');
    const reversed = await t.call('createTransport', {
      token,
      body: {
        chargerFirstName: 'A',
        chargerLastName: 'B',
        vehicleTypeId: refs.vehicleType('Semi-trailer truck'),
        loadingPoint: 'Lyon',
        unloadingWindow: { start: '2026-12-01T10:00:00Z', end: '2026-12-01T08:00:00Z' },
      },
    });
    expect(reversed.status).toBe(400);
    expect(reversed.body.errors).toEqual(['body/unloadingWindow/end must not be before start']);
    const created = await createTransport(t, refs, 'agent');
    const outOfRange = await t.call('updateTransport', {
      token,
      params: { id: created.id },
      payload: { loadingCoordinates: { latitude: 91, longitude: 0 } },
    });
    expect(outOfRange.status).toBe(400);
    expect(errorMessages(outOfRange.body).join(' | ')).toContain('body/loadingCoordinates.latitude must be <= 90');
  });
});
