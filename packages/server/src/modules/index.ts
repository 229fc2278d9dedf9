import type { Representations } from '../http/write-safety/representations.js';
import { actorRepresentations } from './actors/handlers.js';
import { adminAnnouncementRepresentations } from './announcements/admin-handlers.js';
import { profileRepresentations } from './auth/handlers.js';
import { categoriesRepresentations } from './categories/handlers.js';
import { complaintTypesRepresentations } from './complaint-types/handlers.js';
import { adminComplaintRepresentations } from './complaints/admin-handlers.js';
import { tradeComplaintRepresentations } from './complaints/trade-handlers.js';
import { messageRepresentations } from './forum/message-handlers.js';
import { topicRepresentations } from './forum/topic-handlers.js';
import { geographyRepresentations } from './geography/handlers.js';
import { organizationRepresentations } from './organizations/handlers.js';
import { rolesRepresentations } from './roles/handlers.js';
import { tagsRepresentations } from './tags/handlers.js';
import { adminTransportRepresentations } from './transports/admin-handlers.js';
import { tradeTransportRepresentations } from './transports/trade-handlers.js';
import { adminTutorialRepresentations } from './tutorials/admin-handlers.js';
import { accountRepresentations } from './users/account-handlers.js';
import { sessionRepresentations } from './users/session-handlers.js';
import { vehicleTypesRepresentations } from './vehicle-types/handlers.js';
import { webhookRepresentations } from './webhooks/handlers.js';
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

/**
 * The representation of every resource that conditional writes change or creates answer with
 * its ETag (http/write-safety/representations.ts): the function its GET answers with. The
 * write-safety plugin refuses to start when one it needs is missing.
 */
export const representations: Representations = Object.assign(
  {},
  actorRepresentations,
  adminAnnouncementRepresentations,
  profileRepresentations,
  categoriesRepresentations,
  complaintTypesRepresentations,
  adminComplaintRepresentations,
  tradeComplaintRepresentations,
  messageRepresentations,
  topicRepresentations,
  geographyRepresentations,
  organizationRepresentations,
  rolesRepresentations,
  tagsRepresentations,
  adminTransportRepresentations,
  tradeTransportRepresentations,
  adminTutorialRepresentations,
  accountRepresentations,
  sessionRepresentations,
  vehicleTypesRepresentations,
  webhookRepresentations,
);
