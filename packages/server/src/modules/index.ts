import type { Handlers } from '../http/handlers.js';
import { actorHandlers } from './actors/handlers.js';
import { announcementHandlers } from './announcements/handlers.js';
import { categoryHandlers } from './categories/handlers.js';
import { complaintTypeHandlers } from './complaint-types/handlers.js';
import { complaintHandlers } from './complaints/handlers.js';
import { forumHandlers } from './forum/handlers.js';
import { forumAdminHandlers } from './forum-admin/handlers.js';
import { geographyHandlers } from './geography/handlers.js';
import { organizationHandlers } from './organizations/handlers.js';
import { roleHandlers } from './roles/handlers.js';
import { tagHandlers } from './tags/handlers.js';
import { transportHandlers } from './transports/handlers.js';
import { tutorialHandlers } from './tutorials/handlers.js';
import { userHandlers } from './users/handlers.js';
import { vehicleTypeHandlers } from './vehicle-types/handlers.js';
import { authHandlers } from './auth/handlers.js';
import { systemHandlers } from './system/handlers.js';
import { notificationHandlers } from './notifications/handlers.js';
import { reportHandlers } from './reports/handlers.js';
import { profileHandlers } from './profiles/handlers.js';
import { sandboxHandlers } from './sandbox/handlers.js';
import { webhookHandlers } from './webhooks/handlers.js';
import { eventHandlers } from './events/handlers.js';
import { apiKeyHandlers } from './api-keys/handlers.js';
import { auditHandlers } from './audit/handlers.js';
import { trackingHandlers } from './tracking/handlers.js';
import { deliveryHandlers } from './deliveries/handlers.js';
import { publicTrackingHandlers } from './public-tracking/handlers.js';
import { liveHandlers } from './live/handlers.js';

/** Every operationId of the contract, bound to its handler (tsc fails when one is missing). */
export const handlers: Handlers = Object.assign(
  {},
  authHandlers,
  systemHandlers,
  sandboxHandlers,
  actorHandlers,
  announcementHandlers,
  categoryHandlers,
  complaintTypeHandlers,
  complaintHandlers,
  forumHandlers,
  forumAdminHandlers,
  geographyHandlers,
  organizationHandlers,
  roleHandlers,
  tagHandlers,
  transportHandlers,
  tutorialHandlers,
  userHandlers,
  vehicleTypeHandlers,
  notificationHandlers,
  reportHandlers,
  profileHandlers,
  webhookHandlers,
  eventHandlers,
  apiKeyHandlers,
  auditHandlers,
  trackingHandlers,
  deliveryHandlers,
  publicTrackingHandlers,
  liveHandlers,
);
