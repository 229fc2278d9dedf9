import type { ModuleHandlers } from '../../http/handlers.js';
import { adminHandlers } from './admin-handlers.js';
import { fileHandlers } from './file-handlers.js';
import { tradeHandlers } from './trade-handlers.js';

export const complaintHandlers: ModuleHandlers<
  | 'createComplaint'
  | 'listComplaints'
  | 'getComplaintById'
  | 'updateComplaint'
  | 'deleteComplaint'
  | 'getComplaintStatusHistory'
  | 'listComplaintTypes'
  | 'uploadComplaintAttachments'
  | 'downloadComplaintAttachment'
  | 'listAdminComplaints'
  | 'getAdminComplaintById'
  | 'updateAdminComplaint'
  | 'deleteAdminComplaint'
  | 'changeComplaintStatus'
  | 'getAdminComplaintStatusHistory'
  | 'assignComplaint'
  | 'listComplaintNotifications'
  | 'getComplaintStats'
> = { ...tradeHandlers, ...fileHandlers, ...adminHandlers };
