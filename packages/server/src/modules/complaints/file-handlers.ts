import type { components } from '@transport-ops/contract';
import { AppError } from '../../lib/errors.js';
import type { ModuleHandlers } from '../../http/handlers.js';
import { readStored, storeThen } from '../../lib/file-store.js';
import { caller } from '../../lib/identity.js';
import { screenUploads } from '../../lib/uploads.js';
import { attachmentUrl, findDownload, lockComplaint, storeAttachments } from './attachment-repository.js';
import { complaintNotFound, notEditable, ownedComplaints, readableBy } from './rules.js';

type FileType = components['schemas']['UploadedFile']['type'];

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export const fileHandlers: ModuleHandlers<'uploadComplaintAttachments' | 'downloadComplaintAttachment'> = {
  async uploadComplaintAttachments(req) {
    const auth = caller(req);
    const { complaintId } = req.body;
    const { accepted, rejected } = screenUploads(req);
    const files = accepted.map((f) => f.spooled);
    const stored = await storeThen(req.server.files, files, (places) =>
      req.server.db.transaction().execute(async (trx) => {
        if (complaintId !== undefined) {
          const complaint = await lockComplaint(trx, complaintId, ownedComplaints(auth));
          if (!complaint) throw complaintNotFound(complaintId);
          if (complaint.status === 'CLOSED') throw notEditable(complaintId, complaint.status, 'Complaint is closed');
        }
        if (accepted.length === 0) throw new AppError('UPLOAD_REJECTED', { rejected }, 'No file was accepted');
        return storeAttachments(
          trx,
          complaintId ?? null,
          auth.userId,
          accepted.map((f, i) => ({ filename: f.filename, mime_type: f.detectedType, size: f.size, stored: places[i]! })),
        );
      }),
    );
    const message =
      rejected.length === 0
        ? `${plural(stored.length, 'file')} uploaded`
        : `${plural(stored.length, 'file')} uploaded, ${rejected.length} refused`;
    return {
      message,
      result: {
        uploaded: stored.map((f) => ({
          id: f.id,
          filename: f.filename,
          type: f.mime_type as FileType,
          size: f.size,
          url: attachmentUrl(f.id),
        })),
        errors: rejected,
      },
    };
  },

  async downloadComplaintAttachment(req) {
    const auth = caller(req);
    const { id } = req.params;
    const file = await findDownload(req.server.db, id, auth.userId, readableBy(auth));
    if (!file) throw new AppError('DOCUMENT_NOT_FOUND', { documentId: id }, 'Attachment not found');
    const body = await readStored(
      req,
      { table: 'complaint_attachments', ...file },
      () => new AppError('DOCUMENT_CONTENT_MISSING', { documentId: id }, 'Attachment content is missing'),
    );
    return { file: { filename: file.filename, contentType: file.mime_type, body, size: file.size } };
  },
};
