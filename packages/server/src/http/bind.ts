import type { FastifyReply, FastifyRequest } from 'fastify';
import { listOperations, type OpenApiDocument } from '../contract.js';
import type { FileResult, Handlers } from './handlers.js';
import { sharedBody } from './shared-results.js';

type RouteHandler = (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/** Content-Disposition with an ASCII fallback and the RFC 5987 UTF-8 name. */
function disposition(filename: string, inline: boolean): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${inline ? 'inline' : 'attachment'}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

/** Turns the typed handler map into glue's service handlers: envelope, status and file replies. */
export function serviceHandlers(handlers: Handlers, doc: OpenApiDocument): Record<string, RouteHandler> {
  const service: Record<string, RouteHandler> = {};
  for (const { operation } of listOperations(doc)) {
    const { operationId } = operation;
    const handler = handlers[operationId] as (r: FastifyRequest, p: FastifyReply) => Promise<unknown>;
    const statuses = Object.keys((operation as unknown as { responses: object }).responses).map(Number);
    const status = Math.min(...statuses.filter((s) => s >= 200 && s < 300));
    service[operationId] = async (req, reply) => {
      const out = (await handler(req, reply)) as { status?: number; message: string; result: unknown } | FileResult;
      if ('file' in out) {
        const { filename, contentType, body, size, inline = false } = out.file;
        reply.code(200).header('content-type', contentType).header('content-disposition', disposition(filename, inline));
        if (size !== undefined && !(body instanceof Uint8Array)) reply.header('content-length', size);
        reply.header('cache-control', 'private, no-store').header('x-content-type-options', 'nosniff');
        return reply.send(body instanceof Uint8Array ? Buffer.from(body.buffer, body.byteOffset, body.byteLength) : body);
      }
      const code = out.status ?? status;
      reply.code(code);
      const envelope = { success: true, message: out.message, result: out.result, errors: null, except: null };
      // A result shared by many requests (a cached statistics answer) is serialized once.
      const body = sharedBody(out.result, operationId, out.message, code, () => {
        // The serializer Fastify would use for this status (the contract's schema), else plain JSON.
        const serialize = reply.getSerializationFunction(String(code), 'application/json');
        return serialize ? serialize(envelope) : JSON.stringify(envelope);
      });
      return body === undefined ? envelope : reply.type('application/json; charset=utf-8').send(body);
    };
  }
  return service;
}
