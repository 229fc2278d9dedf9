import type { ModuleHandlers } from '../../http/handlers.js';
import { type AdminTransportOps, adminTransportHandlers } from './admin-handlers.js';
import { type TradeTransportOps, tradeTransportHandlers } from './trade-handlers.js';

export const transportHandlers: ModuleHandlers<TradeTransportOps | AdminTransportOps> = Object.assign(
  {},
  tradeTransportHandlers,
  adminTransportHandlers,
);
