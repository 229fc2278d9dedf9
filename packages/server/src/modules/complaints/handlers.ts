import type { ModuleHandlers } from '../../http/handlers.js';
import { adminHandlers } from './admin-handlers.js';
import { fileHandlers } from './file-handlers.js';
import { tradeHandlers } from './trade-handlers.js';

type Ops = keyof typeof tradeHandlers | keyof typeof fileHandlers | keyof typeof adminHandlers;

export const complaintHandlers: ModuleHandlers<Ops> = Object.assign({}, tradeHandlers, fileHandlers, adminHandlers);
