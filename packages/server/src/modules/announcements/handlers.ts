import type { ModuleHandlers } from '../../http/handlers.js';
import { type AdminOperations, adminAnnouncementHandlers } from './admin-handlers.js';
import { type TradeOperations, tradeAnnouncementHandlers } from './trade-handlers.js';

export { invalidateAnnouncementCaches } from './cache.js';

/** Announcements: the user side (`/trade/announcements`) and the administration (`/admin/announcements`). */
export const announcementHandlers: ModuleHandlers<TradeOperations | AdminOperations> = Object.assign(
  {},
  tradeAnnouncementHandlers,
  adminAnnouncementHandlers,
);
