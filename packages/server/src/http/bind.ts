import type { FastifyReply, FastifyRequest } from 'fastify';
import { listOperations, type OpenApiDocument } from '../contract.js';
import type { EventStreamResult, FileResult, Handlers } from './handlers.js';
import { sharedBody } from '../lib/shared-results.js';
import { answerInTransaction, finishAnswer, inTransaction, type JsonAnswer } from './write-safety/answer.js';
import { policies } from './write-safety/plugin.js';

type RouteHandler = (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/** Content-Disposition with an ASCII fallback and the RFC 5987 UTF-8 name. */
function disposition(filename: string, inline: boolean): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${inline ? 'inline' : 'attachment'}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

const JSON_TYPE = 'application/json; charset=utf-8';

const envelopeOf = (out: { message: string; result: unknown }) => ({
  success: true,
  message: out.message,
  result: out.result,
  errors: null,
  except: null,
});

/** The body of a JSON answer with status `code`: the route's serializer for it (the contract's schema), else plain JSON. */
function serialize(reply: FastifyReply, code: number, envelope: Record<string, unknown>): string {
  const serializer = reply.getSerializationFunction(String(code), 'application/json');
  return serializer ? serializer(envelope) : JSON.stringify(envelope);
}

/** Turns the typed handler map into glue's service handlers: envelope, status and file replies. */
export function serviceHandlers(handlers: Handlers, doc: OpenApiDocument): Record<string, RouteHandler> {
  const service: Record<string, RouteHandler> = {};
  for (const { operation } of listOperations(doc)) {
    const { operationId } = operation;
    const handler = handlers[operationId] as (r: FastifyRequest, p: FastifyReply) => Promise<unknown>;
    const statuses = Object.keys((operation as unknown as { responses: object }).responses).map(Number);
    const status = Math.min(...statuses.filter((s) => s >= 200 && s < 300));
    // ETags, conditional writes and idempotency keys (write-safety/), where the contract declares them.
    const policy = policies.get(operationId);
    /** Runs the handler: a file is sent here (undefined), a JSON answer is handed back serialized. */
    const run = async (req: FastifyRequest, reply: FastifyReply): Promise<JsonAnswer | undefined> => {
      const out = (await handler(req, reply)) as { status?: number; message: string; result: unknown } | FileResult | EventStreamResult;
      if ('stream' in out) {
        // Not compressed (@fastify/compress leaves text/event-stream alone: a compressor would hold
        // events back), not buffered by nginx, not cached.
        reply
          .code(200)
          .header('content-type', 'text/event-stream; charset=utf-8')
          .header('cache-control', 'no-cache, no-store')
          .header('x-accel-buffering', 'no')
          .header('x-content-type-options', 'nosniff');
        reply.send(out.stream);
        return undefined;
      }
      if ('file' in out) {
        const { filename, contentType, body, size, inline = false } = out.file;
        reply.code(200).header('content-type', contentType).header('content-disposition', disposition(filename, inline));
        if (size !== undefined && !(body instanceof Uint8Array)) reply.header('content-length', size);
        reply.header('cache-control', 'private, no-store').header('x-content-type-options', 'nosniff');
        reply.send(body instanceof Uint8Array ? Buffer.from(body.buffer, body.byteOffset, body.byteLength) : body);
        return undefined;
      }
      const code = out.status ?? status;
      reply.code(code);
      // A result shared by many requests (a cached statistics answer) is serialized once; any
      // other by the serializer Fastify would pick for this status (the contract's schema, else
      // plain JSON), called here so that Fastify does not parse the content type to pick it again.
      const body =
        sharedBody(out.result, operationId, out.message, code, () => serialize(reply, code, envelopeOf(out))) ??
        serialize(reply, code, envelopeOf(out));
      return { code, body };
    };
    service[operationId] = async (req, reply) => {
      if (policy && inTransaction(req, policy)) return answerInTransaction(req, reply, policy, () => run(req, reply));
      const answer = await run(req, reply);
      if (!answer) return reply;
      if (policy) return finishAnswer(req, reply, policy, answer);
      return reply.type(JSON_TYPE).send(answer.body);
    };
  }
  return service;
}
