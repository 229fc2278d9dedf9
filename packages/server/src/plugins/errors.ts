import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError, ListError } from '../http/errors.js';
import { isDependencyOutage, OUTAGE_RETRY_AFTER_SECONDS as retryAfterSeconds } from '../lib/outage.js';

interface ValidationIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** "body/email must match format \"email\"": the field path, then the rule. */
function describe(context: string, issue: ValidationIssue): { field: string; message: string } {
  let field = issue.instancePath.replace(/^\//, '').replace(/\//g, '.');
  let message = issue.message ?? 'is invalid';
  if (issue.keyword === 'required') {
    field = [field, issue.params.missingProperty].filter(Boolean).join('.');
    message = 'is required';
  } else if (issue.keyword === 'additionalProperties') {
    field = [field, issue.params.additionalProperty].filter(Boolean).join('.');
    message = 'is not an accepted field';
  } else if (issue.keyword === 'enum') {
    message = `must be one of: ${(issue.params.allowedValues as unknown[]).join(', ')}`;
  } else if (issue.keyword === 'const') {
    message = `must be ${JSON.stringify(issue.params.allowedValue)}`;
  }
  return { field: field || context, message: field ? message : `${context} ${message}` };
}

const envelope = (message: string, errors: unknown, except: string | null = null) => ({
  success: false,
  message,
  result: null,
  errors,
  except,
});

/** Maps Fastify's, glue's, plugins' and the domain's errors to the envelope; hides 5xx internals in production. */
export default fp(async function errors(app: FastifyInstance) {
  const production = app.config.nodeEnv === 'production';

  const handle = (error: FastifyError & { errors?: unknown[] }, req: FastifyRequest, reply: FastifyReply): FastifyReply => {
    // glue wraps security handler failures; the handler's own error is the last one.
    if (error.name === 'Unauthorized' && Array.isArray(error.errors) && error.errors.length > 0) {
      const inner = error.errors.at(-1);
      if (inner instanceof Error) return handle(inner as FastifyError, req, reply);
    }
    if (error instanceof AppError) {
      if (error.detail.code === 'RATE_LIMITED') reply.header('retry-after', String(error.detail.retryAfterSeconds));
      return reply.code(error.statusCode).send(envelope(error.message, error.detail));
    }
    if (error instanceof ListError) {
      if (error.statusCode === 401) reply.header('www-authenticate', 'Bearer');
      return reply.code(error.statusCode).send(envelope(error.message, error.errors));
    }
    if (error.validation) {
      const context = error.validationContext ?? 'request';
      const issues = (error.validation as ValidationIssue[]).map((issue) => describe(context, issue));
      if (req.routeOptions.config.validationErrors === 'fieldMap') {
        const map: Record<string, string> = {};
        for (const { field, message } of issues) map[field] ??= message;
        return reply.code(400).send(envelope('Validation failed', map));
      }
      const list = [...new Set(issues.map(({ field, message }) => (field === context ? message : `${context}/${field} ${message}`)))];
      return reply.code(400).send(envelope('Validation failed', list));
    }
    if (isDependencyOutage(error)) {
      req.log.warn({ err: error }, 'dependency unavailable');
      reply.header('retry-after', String(retryAfterSeconds));
      return reply.code(503).send(envelope('Service temporarily unavailable', { code: 'SERVICE_UNAVAILABLE', retryAfterSeconds }));
    }
    const status = error.statusCode ?? 500;
    if (status === 413) {
      return reply.code(413).send(envelope('Request is too large', { code: 'PAYLOAD_TOO_LARGE', limit: error.message }));
    }
    if (status === 415 || error.code === 'FST_INVALID_MULTIPART_CONTENT_TYPE') {
      const contentType = req.headers['content-type'] ?? '(none)';
      return reply.code(415).send(envelope('Unsupported media type', { code: 'UNSUPPORTED_MEDIA_TYPE', contentType }));
    }
    if (status >= 400 && status < 500) {
      return reply.code(status).send(envelope(error.message, [error.message]));
    }
    req.log.error({ err: error }, 'request failed');
    return reply
      .code(500)
      .send(envelope('Internal server error', { code: 'INTERNAL_ERROR', requestId: String(req.id) }, production ? null : error.message));
  };
  app.setErrorHandler(handle);

  app.setNotFoundHandler((req, reply) => {
    const url = req.url.split('?')[0] ?? req.url;
    reply
      .code(404)
      .send(envelope(`No operation at ${req.method} ${url}`, { code: 'ROUTE_NOT_FOUND', method: req.method, url }));
  });
});

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `fieldMap`: validation errors as a map of field to message (complaint operations). */
    validationErrors?: 'fieldMap';
  }
}
