import type { ModuleHandlers } from '../../http/handlers.js';
import { type AdminComplaintOps, adminHandlers } from './admin-handlers.js';
import { type FileComplaintOps, fileHandlers } from './file-handlers.js';
import { type TradeComplaintOps, tradeHandlers } from './trade-handlers.js';

export const complaintHandlers: ModuleHandlers<TradeComplaintOps | FileComplaintOps | AdminComplaintOps> = {
  ...tradeHandlers,
  ...fileHandlers,
  ...adminHandlers,
};
