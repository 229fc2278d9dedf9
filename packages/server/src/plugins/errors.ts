import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { allowedMethods } from '../http/allowed-methods.js';
import { AppError, ListError } from '../lib/errors.js';
import { contractErrorOf } from '../lib/db-errors.js';
import { SECURITY_HEADERS } from './headers.js';
import { bodyRequired, TEXT_SAFE } from './validation.js';
import { isDependencyOutage, OUTAGE_RETRY_AFTER_SECONDS as retryAfterSeconds } from '../lib/outage.js';
import { STORAGE_RETRY_AFTER_SECONDS, storageFailure } from '../lib/storage-errors.js';

interface ValidationIssue {
  instancePath: string;
  schemaPath?: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
  schema?: unknown;
  parentSchema?: Record<string, unknown>;
}

/**
 * A schema may name the domain error its `anyOf` stands for (`x-error-code`, e.g. "an e-mail or a
 * phone": MISSING_CUSTOMER_INFO, the code the operation gave before the rule was in the schema).
 * When that `anyOf` is the only rule broken, the answer is that error; when others are broken too,
 * the `anyOf` (and its branches' errors) is left out of the list, as the rule used to be checked
 * only once the fields were valid.
 */
// The texts are those of the operation's own check (modules/actors/family.ts), which stays for updates.
const DOMAIN_MESSAGES: Record<string, { detail: string; message: string }> = {
  MISSING_CUSTOMER_INFO: {
    detail: 'Provide at least an e-mail address or a phone number',
    message: 'Customer needs an e-mail or a phone number',
  },
};

function domainRule(issues: ValidationIssue[]): { code: string; rest: ValidationIssue[] } | undefined {
  const rule = issues.find((i) => i.keyword === 'anyOf' && typeof i.parentSchema?.['x-error-code'] === 'string');
  if (!rule) return undefined;
  const prefix = `${rule.schemaPath}/`;
  const rest = issues.filter((i) => i !== rule && !(i.instancePath === rule.instancePath && i.schemaPath?.startsWith(prefix)));
  return { code: rule.parentSchema!['x-error-code'] as string, rest };
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
  } else if (issue.keyword === 'not' && Array.isArray((issue.schema as { required?: unknown } | undefined)?.required)) {
    message = `must not contain both ${((issue.schema as { required: string[] }).required).join(' and ')}`;
  } else if (issue.keyword === TEXT_SAFE) {
    message = 'must not contain NUL characters';
  } else if (issue.keyword === 'const') {
    message = `must be ${JSON.stringify(issue.params.allowedValue)}`;
  }
  return { field: field || context, message: field ? message : `${context} ${message}` };
}

/**
 * The issues worth reporting: where a value has the wrong type, the other rules checked on that
 * same value (its required fields, a `not`, a length) say nothing more about it and only mislead
 * (an array sent for an object "must not contain both customerId and newCustomer").
 */
function relevant(issues: ValidationIssue[]): ValidationIssue[] {
  const mistyped = new Set(issues.filter((i) => i.keyword === 'type').map((i) => i.instancePath));
  return mistyped.size === 0 ? issues : issues.filter((i) => i.keyword === 'type' || !mistyped.has(i.instancePath));
}

/**
 * Validation reports at most this many errors, then one line saying how many more there were:
 * ajv collects every error (`allErrors`, compiled into each validator), and a body breaking a
 * rule thousands of times must not get an answer thousands of lines long. (The work itself is
 * bounded before validation: see http/json-structure.ts.)
 */
export const MAX_REPORTED_ERRORS = 10;

function capped(list: string[]): string[] {
  if (list.length <= MAX_REPORTED_ERRORS) return list;
  const more = list.length - MAX_REPORTED_ERRORS;
  return [
    ...list.slice(0, MAX_REPORTED_ERRORS),
    `and ${more} more error${more === 1 ? '' : 's'} (at most ${MAX_REPORTED_ERRORS} are reported)`,
  ];
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
      // The rest of an oversized body is not read: the connection closes after the answer.
      if (error.statusCode === 413) reply.header('connection', 'close');
      // Codes that tell when to retry (RATE_LIMITED, IDEMPOTENCY_KEY_IN_USE) say it in the header too.
      if ('retryAfterSeconds' in error.detail) reply.header('retry-after', String(error.detail.retryAfterSeconds));
      return reply.code(error.statusCode).send(envelope(error.message, error.detail));
    }
    if (error instanceof ListError) {
      if (error.statusCode === 401) reply.header('www-authenticate', 'Bearer');
      return reply.code(error.statusCode).send(envelope(error.message, error.errors));
    }
    if (error.validation) {
      const context = error.validationContext ?? 'request';
      let broken = error.validation as ValidationIssue[];
      const domain = domainRule(broken);
      if (domain && DOMAIN_MESSAGES[domain.code]) {
        if (domain.rest.length === 0) {
          const { detail, message } = DOMAIN_MESSAGES[domain.code]!;
          return reply.code(400).send(envelope(message, { code: domain.code, message: detail }));
        }
        broken = domain.rest;
      }
      const issues = relevant(broken).map((issue) => describe(context, issue));
      if (req.routeOptions.config.validationErrors === 'fieldMap') {
        const map: Record<string, string> = {};
        let fields = 0;
        for (const { field, message } of issues) {
          if (field in map) continue;
          if (fields++ === MAX_REPORTED_ERRORS) break;
          map[field] = message;
        }
        return reply.code(400).send(envelope('Validation failed', map));
      }
      const list = [...new Set(issues.map(({ field, message }) => (field === context ? message : `${context}/${field} ${message}`)))];
      return reply.code(400).send(envelope('Validation failed', capped(list)));
    }
    // Disk or quota full, read-only or failing storage: the operator must act (logged at error), the
    // client may retry later. An upload answers 507 STORAGE_UNAVAILABLE; any other operation 503.
    const storage = storageFailure(error);
    if (storage) {
      req.log.error({ err: error, storage }, 'storage failure');
      const retry = STORAGE_RETRY_AFTER_SECONDS;
      reply.header('retry-after', String(retry));
      if (req.routeOptions.config.upload) {
        return reply
          .code(507)
          .send(envelope('Storage unavailable', { code: 'STORAGE_UNAVAILABLE', reason: storage, retryAfterSeconds: retry }));
      }
      return reply.code(503).send(envelope('Service temporarily unavailable', { code: 'SERVICE_UNAVAILABLE', retryAfterSeconds: retry }));
    }
    if (isDependencyOutage(error)) {
      req.log.warn({ err: error }, 'dependency unavailable');
      reply.header('retry-after', String(retryAfterSeconds));
      return reply.code(503).send(envelope('Service temporarily unavailable', { code: 'SERVICE_UNAVAILABLE', retryAfterSeconds }));
    }
    const fromDatabase = contractErrorOf(error);
    if (fromDatabase) return handle(fromDatabase as unknown as FastifyError, req, reply);
    if (error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return handle(bodyRequired() as unknown as FastifyError, req, reply);
    if (error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || (error instanceof SyntaxError && error.statusCode === 400)) {
      return reply.code(400).send(envelope('Validation failed', ['body is not valid JSON']));
    }
    const status = error.statusCode ?? 500;
    if (status === 413) {
      reply.header('connection', 'close');
      return reply.code(413).send(envelope('Request is too large', { code: 'PAYLOAD_TOO_LARGE', limit: error.message }));
    }
    if (status === 415 || error.code === 'FST_INVALID_MULTIPART_CONTENT_TYPE') {
      const contentType = req.headers['content-type'] ?? '(none)';
      return reply.code(415).send(envelope('Unsupported media type', { code: 'UNSUPPORTED_MEDIA_TYPE', contentType }));
    }
    // busboy's errors (a broken boundary, a truncated part) arrive before the body was read.
    if (status === 500 && req.isMultipart?.() && !req.multipartRead && !(error as { code?: string }).code?.startsWith('FST_')) {
      return reply.code(400).send(envelope('Validation failed', [`body is not valid multipart/form-data: ${error.message}`]));
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

  // A known path asked with a method it lacks is a 405 listing its methods, not a 404.
  const allowed = allowedMethods();
  // Outside sandbox mode the sandbox's operations answer as unbound paths: no 405 reveals them.
  const unbound = (url: string) => !app.config.sandbox && url.startsWith('/sandbox/');
  app.addHook('onRoute', (route) => {
    if (!unbound(route.url)) allowed.add(route.method, route.url);
  });

  app.setNotFoundHandler((req, reply) => {
    const url = req.url.split('?')[0] ?? req.url;
    const allow = allowed.of(url);
    if (allow !== null) {
      reply.header('allow', allow.join(', '));
      const error = new AppError('METHOD_NOT_ALLOWED', { method: req.method, url, allow }, `${req.method} is not an operation of ${url}`);
      return reply.code(405).send(envelope(error.message, error.detail));
    }
    reply.code(404).send(envelope(`No operation at ${req.method} ${url}`, { code: 'ROUTE_NOT_FOUND', method: req.method, url }));
  });
});

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `fieldMap`: validation errors as a map of field to message (complaint operations). */
    validationErrors?: 'fieldMap';
  }
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  408: 'Request timeout',
  413: 'Request is too large',
  414: 'URI too long',
  431: 'Request header fields too large',
};

/**
 * Errors Node's HTTP parser raises before Fastify sees a request (header overflow, malformed
 * request line, timeouts): answered in the envelope on the raw socket, which is then closed.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: import('node:net').Socket) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const status =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? 408
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? 431
        : error.code === 'HPE_URI_TOO_LONG'
          ? 414
          : 400;
  const message = STATUS_TEXT[status]!;
  const body = JSON.stringify(envelope(message, [status === 431 ? 'The request line and headers exceed 16 KB' : message]));
  if (socket.writable) {
    socket.end(
      `HTTP/1.1 ${status} ${message}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroySoon?.();
}

/**
 * Fastify's own routing errors (a malformed URL, a path parameter over its length limit) in the
 * envelope, with the headers of every answer (no hook runs for them).
 */
export function frameworkErrors(error: FastifyError, req: FastifyRequest, reply: FastifyReply) {
  const status = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 414 : error.statusCode && error.statusCode < 500 ? error.statusCode : 400;
  const reason = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'A path segment exceeds 100 characters' : 'The URL is malformed';
  return reply
    .code(status)
    .headers(SECURITY_HEADERS)
    .header('x-request-id', req.id)
    .header('content-type', 'application/json; charset=utf-8')
    .send(envelope(STATUS_TEXT[status] ?? reason, [reason]));
}
