import multipart, { type MultipartFile } from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fileTypeFromBuffer } from 'file-type';
import fp from 'fastify-plugin';
import { AppError } from '../lib/errors.js';
import type { Spooled } from '../lib/file-store.js';
import type { UploadedPart } from '../lib/uploads.js';
import { hookList } from '../http/route-hooks.js';

interface MultipartField {
  type: 'file' | 'field';
  fieldname: string;
  filename?: string;
  value?: unknown;
  file?: { truncated?: boolean };
  /** Set by `onFile`: where the part's bytes were written. */
  spooled?: Spooled;
}

/**
 * Multipart uploads: each file part is written to a spool file of the file store as it arrives
 * (within the operation's limits; only its first bytes stay in memory, to recognise its type), then
 * the body is turned into a plain object (file names and fields) so that the contract's schema
 * validates it; the files are described on `request.uploads`, and a handler's `storeThen` moves
 * them into the store. Spool files no handler moved are removed before the response is sent. Per-operation
 * limits come from the route config the contract declares.
 */
export default fp(async function uploads(app: FastifyInstance) {
  await app.register(multipart, {
    attachFieldsToBody: true,
    throwFileSizeLimit: false,
    limits: { fileSize: 10 * 1024 * 1024, files: 10, fields: 20, parts: 40, fieldSize: 64 * 1024 },
    async onFile(this: FastifyRequest, part: MultipartFile) {
      // Only operations that take uploads keep files (their routes release the spool files).
      if (!this.routeOptions.config.upload) {
        part.file.resume();
        return;
      }
      const spooled = await this.server.files.spool(part.file);
      this.spooled ??= [];
      this.spooled.push(spooled);
      (part as unknown as MultipartField).spooled = spooled;
    },
  });
  app.decorateRequest('uploads', null as unknown as UploadedPart[]);
  app.decorateRequest('spooled', null as unknown as Spooled[]);
  app.decorateRequest('multipartRead', false);

  /** Removes the request's spool files that no handler moved into the store (rejected files, failures). */
  const release = (req: FastifyRequest, done: () => void) => {
    const spooled = req.spooled;
    if (!spooled || spooled.length === 0) return done();
    req.spooled = [];
    app.files.release(spooled).then(
      () => done(),
      (error: unknown) => {
        req.log.warn({ err: error }, 'a spool file could not be removed');
        done();
      },
    );
  };

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
    route.config = Object.assign({}, route.config, {
      multipartOptions: { limits: { fileSize: rule.maxFileBytes, files: rule.maxFiles }, throwFileSizeLimit: false },
    }) as typeof route.config;
    route.preParsing = [...hookList(route.preParsing), capRequest];
    // Before the response goes out (onSend runs for answers and errors alike): a client that has its
    // answer finds no spool file left behind.
    route.onSend = [
      ...hookList(route.onSend),
      (req: FastifyRequest, _reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) =>
        release(req, () => done(null, payload)),
    ];
    route.onRequestAbort = [...hookList(route.onRequestAbort), release];
    // Only upload operations accept a multipart body (the validation plugin refuses media types an
    // operation does not declare), so only their requests have parts to read.
    route.preValidation = [...hookList(route.preValidation), readBody];
  });
});

/** Reads the parts of a multipart body (callback-style: a request without one has nothing to wait for). */
function readBody(req: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
  req.uploads = [];
  req.multipartRead = true;
  if (!req.isMultipart() || req.body === null || typeof req.body !== 'object') done();
  else readParts(req).then(() => done(), done);
}

/** Turns the multipart body into a plain object (file names and fields) and keeps the file bytes on `req.uploads`. */
async function readParts(req: FastifyRequest): Promise<void> {
  const plain: Record<string, unknown> = {};
  for (const [name, entry] of Object.entries(req.body as Record<string, MultipartField | MultipartField[]>)) {
    const parts = Array.isArray(entry) ? entry : [entry];
    const files = parts.filter((p) => p.type === 'file');
    if (files.length > 0) {
      plain[name] = files.map((p) => p.filename ?? 'unnamed');
      for (const part of files) {
        const spooled = part.spooled;
        if (!spooled) continue; // an operation without uploads: the file was drained, not kept
        const detected = spooled.size > 0 ? await fileTypeFromBuffer(spooled.head) : undefined;
        req.uploads.push({
          field: name,
          filename: part.filename ?? 'unnamed',
          detectedType: detected?.mime ?? null,
          size: spooled.size,
          spooled,
          truncated: part.file?.truncated === true,
        });
      }
    } else {
      plain[name] = parts.length === 1 ? parts[0]!.value : parts.map((p) => p.value);
    }
  }
  req.body = plain;
}
