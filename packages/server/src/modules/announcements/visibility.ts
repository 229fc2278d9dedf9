import { AppError } from '../../lib/errors.js';
import type { Audience } from './repository.js';
import { announcementExpired, announcementNotFound } from './rules.js';

interface Targeted {
  status: string;
  expires_at: Date | string | null;
  is_global: boolean;
  target_user_types: string[];
  target_regions: string[];
}

export function isTargetedAt(row: Targeted, audience: Audience): boolean {
  return (
    row.is_global ||
    (audience.role !== null && row.target_user_types.includes(audience.role)) ||
    (audience.country !== null && row.target_regions.includes(audience.country))
  );
}

/**
 * The user-side visibility checks, in the contract's order: 404 when missing or not published,
 * 403 when targeted at another audience, 410 when expired.
 */
export function assertVisible<R extends Targeted>(row: R | undefined, id: number, audience: Audience, now: Date): R {
  if (row?.status !== 'PUBLISHED') throw announcementNotFound(id);
  if (!isTargetedAt(row, audience)) {
    throw new AppError('ACCESS_DENIED', { reason: 'This announcement is targeted at other user types or regions' }, 'Access denied');
  }
  if (row.expires_at !== null && new Date(row.expires_at) <= now) throw announcementExpired(id, row.expires_at);
  return row;
}
