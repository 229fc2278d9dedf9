import { createHash, randomBytes } from 'node:crypto';
import type { components } from '@transport-ops/contract';
import { AppError } from '../../lib/errors.js';
import type { ModuleHandlers } from '../../http/handlers.js';
import { caller } from '../../lib/identity.js';
import { iso } from '../../lib/time.js';
import { trackingState } from '../tracking/read.js';
import { findVisible } from '../transports/repository.js';
import { transportNotFound } from '../transports/rules.js';
import { insertLink, type LinkRow, linkByHash, linksOf, publicMilestones, revokeLink, thinnedRoute } from './repository.js';

type Schemas = components['schemas'];

const DEFAULT_TTL_HOURS = 168;
/** Transports that get no new link. */
const NO_LINK = ['CANCELLED', 'ARCHIVED'];

/** 256 random bits, base64url (43 characters); the database keeps only its SHA-256. */
const newToken = () => randomBytes(32).toString('base64url');
export const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

function toLink(l: LinkRow, now = new Date()): Schemas['TrackingLink'] {
  return {
    id: l.id,
    transportId: l.transport_id,
    expiresAt: iso(l.expires_at),
    revokedAt: iso(l.revoked_at),
    active: l.revoked_at === null && l.expires_at > now,
    createdAt: iso(l.created_at),
    createdBy: { id: l.user_id, username: l.username },
  };
}

const point = (p: { recorded_at: Date; latitude: number; longitude: number }) => ({
  latitude: p.latitude,
  longitude: p.longitude,
  recordedAt: iso(p.recorded_at),
});

type Ops = 'createTrackingLink' | 'listTrackingLinks' | 'revokeTrackingLink' | 'getPublicTracking';

export const publicTrackingHandlers: ModuleHandlers<Ops> = {
  async createTrackingLink(req) {
    const auth = caller(req);
    const { db, config } = req.server;
    const { id } = req.params;
    const transport = await findVisible(db, auth, id);
    if (!transport) throw transportNotFound(id);
    if (NO_LINK.includes(transport.status))
      throw new AppError(
        'NOT_EDITABLE',
        { resource: 'transport', id, status: transport.status },
        `A tracking link cannot be made for a transport in status ${transport.status}`,
      );
    const token = newToken();
    const ttlHours = req.body?.ttlHours ?? DEFAULT_TTL_HOURS;
    const row = await insertLink(db, {
      transportId: id,
      tokenHash: tokenHash(token),
      expiresAt: new Date(Date.now() + ttlHours * 3600_000),
      createdBy: auth.userId,
    });
    const url = `${config.publicBaseUrl.replace(/\/+$/, '')}/track/${token}`;
    return { message: 'Tracking link created', result: Object.assign(toLink(row), { token, url }) };
  },

  async listTrackingLinks(req) {
    const auth = caller(req);
    const { db } = req.server;
    const { id } = req.params;
    if (!(await findVisible(db, auth, id))) throw transportNotFound(id);
    const now = new Date();
    return { message: 'Tracking links retrieved', result: (await linksOf(db, id)).map((l) => toLink(l, now)) };
  },

  async revokeTrackingLink(req) {
    const auth = caller(req);
    const { db } = req.server;
    const { id, linkId } = req.params;
    if (!(await findVisible(db, auth, id))) throw transportNotFound(id);
    const row = await revokeLink(db, id, linkId);
    if (!row) throw new AppError('RESOURCE_NOT_FOUND', { resource: 'tracking link', id: linkId }, 'Tracking link not found');
    return { message: 'Tracking link revoked', result: toLink(row) };
  },

  async getPublicTracking(req, reply) {
    const { db } = req.server;
    // The address carries the token: no shared cache keeps the answer.
    reply.header('cache-control', 'no-store');
    const link = await linkByHash(db, tokenHash(req.params.token));
    if (!link) throw new AppError('TRACKING_LINK_NOT_FOUND', {}, 'Tracking link not found');
    if (link.revoked_at !== null)
      throw new AppError('TRACKING_LINK_GONE', { reason: 'REVOKED', at: iso(link.revoked_at) }, 'This tracking link was revoked');
    const now = new Date();
    if (link.expires_at <= now)
      throw new AppError('TRACKING_LINK_GONE', { reason: 'EXPIRED', at: iso(link.expires_at) }, 'This tracking link has expired');
    const state = await trackingState(db, link.transport_id, now);
    // A link goes with its transport (cascade): a missing transport is a link deleted meanwhile.
    if (!state) throw new AppError('TRACKING_LINK_NOT_FOUND', {}, 'Tracking link not found');
    const { tracking } = state;
    const route = await thinnedRoute(db, link.transport_id);
    const milestones = await publicMilestones(db, link.transport_id);
    const last = tracking.lastPosition;
    return {
      message: 'Tracking retrieved',
      result: {
        status: tracking.status,
        eta: tracking.eta,
        late: tracking.late,
        lateByMinutes: tracking.lateByMinutes,
        distanceRemainingKm: tracking.distanceRemainingKm,
        arrivedAt: tracking.arrivedAt,
        unloadingWindow: tracking.unloadingWindow,
        destination: tracking.destination,
        lastPosition: last ? { latitude: last.latitude, longitude: last.longitude, recordedAt: last.recordedAt } : null,
        route: route.points.map(point),
        routePointCount: route.total,
        milestones: milestones.map((m) => ({ type: m.type, occurredAt: iso(m.occurred_at) })),
        expiresAt: iso(link.expires_at),
      },
    };
  },
};
