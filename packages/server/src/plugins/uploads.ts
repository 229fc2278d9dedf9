import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fileTypeFromBuffer } from 'file-type';
import fp from 'fastify-plugin';
import { AppError } from '../http/errors.js';

/** The limits of one upload operation, declared once in the contract (`x-fastify-config.upload`). */
export interface UploadRule {
  field: string;
  maxFiles: number;
  maxFileBytes: number;
  types: string[];
}

export interface UploadedPart {
  filename: string;
  /** MIME type detected from the bytes, or null when unknown. */
  detectedType: string | null;
  bytes: Buffer;
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
    /** Set once the multipart body has been read (errors before that are malformed bodies). */
    multipartRead: boolean;
  }
  interface FastifyContextConfig {
    upload?: UploadRule;
  }
}

interface MultipartField {
  type: 'file' | 'field';
  fieldname: string;
  filename?: string;
  value?: unknown;
  _buf?: Buffer | null;
  file?: { truncated?: boolean };
}

/**
 * Multipart uploads: parts are buffered (within the operation's limits), then turned into a plain
 * object (file names and fields) so that the contract's schema validates them; the bytes stay on
 * `request.uploads`. Per-operation limits come from the route config the contract declares.
 */
export default fp(async function uploads(app: FastifyInstance) {
  await app.register(multipart, {
    attachFieldsToBody: true,
    throwFileSizeLimit: false,
    limits: { fileSize: 10 * 1024 * 1024, files: 10, fields: 20, parts: 40, fieldSize: 64 * 1024 },
  });
  app.decorateRequest('uploads', null as unknown as UploadedPart[]);
  app.decorateRequest('multipartRead', false);

  const requestLimit = app.config.uploadRequestLimitBytes;
  const limitText = `${Math.round(requestLimit / 1048576)} MB multipart request`;
  const tooLarge = () => new AppError('PAYLOAD_TOO_LARGE', { limit: limitText }, 'Request is too large');

  // The whole request is capped while it streams: a declared length over the cap is refused before
  // reading, and a body that grows past it (chunked, or lying about its length) is cut off there.
  // multipart pipes the raw request into its parser, so the count sits on that pipe.
  const capRequest = async (req: FastifyRequest) => {
    if (Number(req.headers['content-length'] ?? 0) > requestLimit) throw tooLarge();
    const raw = req.raw;
    const pipe = raw.pipe.bind(raw);
    raw.pipe = ((destination: NodeJS.WritableStream, options?: { end?: boolean }) => {
      let received = 0;
      const count = (chunk: Buffer) => {
        received += chunk.length;
        if (received <= requestLimit) return;
        raw.off('data', count);
        raw.unpipe();
        raw.pause();
        raw.emit('error', tooLarge());
      };
      raw.on('data', count);
      return pipe(destination, options);
    }) as typeof raw.pipe;
  };

  app.addHook('onRoute', (route) => {
    const rule = route.config?.upload;
    if (!rule) return;
    // multipart reads these per route: at most one byte past the limit marks a file as too large.
    route.config = {
      ...route.config,
      multipartOptions: { limits: { fileSize: rule.maxFileBytes, files: rule.maxFiles }, throwFileSizeLimit: false },
    } as typeof route.config;
    const before = route.preParsing === undefined ? [] : Array.isArray(route.preParsing) ? route.preParsing : [route.preParsing];
    route.preParsing = [...before, capRequest];
  });

  // Callback-style: every request passes here, and only multipart ones have anything to wait for.
  app.addHook('preValidation', (req: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
    req.uploads = [];
    req.multipartRead = true;
    if (!req.isMultipart() || req.body === null || typeof req.body !== 'object') return done();
    readParts(req).then(() => done(), done);
  });
});

/** Turns the multipart body into a plain object (file names and fields) and keeps the file bytes on `req.uploads`. */
async function readParts(req: FastifyRequest): Promise<void> {
  const plain: Record<string, unknown> = {};
  for (const [name, entry] of Object.entries(req.body as Record<string, MultipartField | MultipartField[]>)) {
    const parts = Array.isArray(entry) ? entry : [entry];
    const files = parts.filter((p) => p.type === 'file');
    if (files.length > 0) {
      plain[name] = files.map((p) => p.filename ?? 'unnamed');
      for (const part of files) {
        const bytes = part._buf ?? Buffer.alloc(0);
        const detected = bytes.length > 0 ? await fileTypeFromBuffer(bytes) : undefined;
        req.uploads.push({
          filename: part.filename ?? 'unnamed',
          detectedType: detected?.mime ?? null,
          bytes,
          truncated: part.file?.truncated === true,
        });
      }
    } else {
      plain[name] = parts.length === 1 ? parts[0]!.value : parts.map((p) => p.value);
    }
  }
  req.body = plain;
}

/** Splits the uploaded files into accepted ones and rejections, by their bytes and the operation's rule. */
export function screenUploads(req: FastifyRequest) {
  const rule = req.routeOptions.config.upload;
  if (!rule) throw new Error(`operation at ${req.url} declares no upload rule`);
  const accepted: Array<UploadedPart & { detectedType: string }> = [];
  const rejected: UploadRejection[] = [];
  for (const part of req.uploads) {
    if (part.bytes.length === 0) {
      rejected.push({ filename: part.filename, code: 'FILE_EMPTY', message: 'The file is empty' });
    } else if (part.truncated || part.bytes.length > rule.maxFileBytes) {
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
