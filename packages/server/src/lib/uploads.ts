import { readFile } from 'node:fs/promises';
import type { FastifyRequest } from 'fastify';
import type { Spooled } from './file-store.js';

/*
 * The files of an upload request as handlers see them: the uploads plugin (plugins/uploads.ts)
 * reads the multipart parts into `request.uploads` within the operation's limits; a handler screens
 * them here against the operation's rule and stores the accepted ones. Plugins and modules both
 * import this file; it imports neither.
 */

/** The limits of one upload operation, declared once in the contract (`x-fastify-config.upload`). */
export interface UploadRule {
  field: string;
  maxFiles: number;
  maxFileBytes: number;
  types: string[];
}

export interface UploadedPart {
  /** The form field the file came in. */
  field: string;
  filename: string;
  /** MIME type detected from the bytes, or null when unknown. */
  detectedType: string | null;
  size: number;
  /** The bytes, in a spool file of the file store (`put` moves it into the store). */
  spooled: Spooled;
  truncated: boolean;
}

export interface UploadRejection {
  filename: string;
  code: 'FILE_TYPE_NOT_ALLOWED' | 'FILE_TOO_LARGE' | 'FILE_EMPTY';
  message: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    uploads: UploadedPart[];
    /** Spool files of this request's uploads, removed before its response is sent. */
    spooled: Spooled[];
    /** Set once the multipart body has been read (errors before that are malformed bodies). */
    multipartRead: boolean;
  }
  interface FastifyContextConfig {
    upload?: UploadRule;
  }
}

/** Splits the uploaded files into accepted ones and rejections, by their bytes and the operation's rule. */
export function screenUploads(req: FastifyRequest) {
  const rule = req.routeOptions.config.upload;
  if (!rule) throw new Error(`operation at ${req.url} declares no upload rule`);
  const accepted: Array<UploadedPart & { detectedType: string }> = [];
  const rejected: UploadRejection[] = [];
  for (const part of req.uploads) {
    if (part.size === 0) {
      rejected.push({ filename: part.filename, code: 'FILE_EMPTY', message: 'The file is empty' });
    } else if (part.truncated || part.size > rule.maxFileBytes) {
      rejected.push({ filename: part.filename, code: 'FILE_TOO_LARGE', message: `The file exceeds ${rule.maxFileBytes / 1048576} MB` });
    } else if (!part.detectedType || !rule.types.includes(part.detectedType)) {
      rejected.push({
        filename: part.filename,
        code: 'FILE_TYPE_NOT_ALLOWED',
        message: `The file content is ${part.detectedType ?? 'of an unknown type'}; accepted: ${rule.types.join(', ')}`,
      });
    } else {
      accepted.push(part as UploadedPart & { detectedType: string });
    }
  }
  return { accepted, rejected };
}

/** The bytes of an accepted upload, read from its spool file (for values kept in a row, e.g. an avatar). */
export const uploadedBytes = (part: UploadedPart): Promise<Buffer> => readFile(part.spooled.path);
