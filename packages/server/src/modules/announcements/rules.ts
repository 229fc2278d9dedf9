import { AppError } from '../../lib/errors.js';
import { iso } from '../../lib/time.js';

export const announcementNotFound = (announcementId: number) =>
  new AppError('ANNOUNCEMENT_NOT_FOUND', { announcementId }, 'Announcement not found');

export const announcementExpired = (announcementId: number, expiresAt: Date | string) =>
  new AppError('ANNOUNCEMENT_EXPIRED', { announcementId, expiresAt: iso(expiresAt) }, 'Announcement has expired');
