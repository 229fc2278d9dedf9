import { _, type KeywordCxt } from 'ajv';
import { Ajv2020, type Options } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, FastifyRequest, preParsingHookHandler, preValidationHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { loadContract, listOperations } from '../contract.js';
import { AppError, ListError } from '../lib/errors.js';
import { jsonStructureBreach } from '../http/json-structure.js';
import { lazyValidator, loadPrecompiled, schemaKey, type Validate } from '../http/precompiled.js';
import { hookList } from '../http/route-hooks.js';

// ajv-formats is CommonJS: under NodeNext its function is the default export's `default`.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv2020,
) => Ajv2020;

/** The keyword put on every string schema: PostgreSQL cannot store NUL in text. */
export const TEXT_SAFE = 'x-text-safe';

/**
 * Request validation with JSON Schema 2020-12 (the dialect of an OpenAPI 3.1 document).
 * Unknown body fields are refused (`additionalProperties: false` in the contract is enforced, not
 * stripped); defaults from the contract are applied. `coerce` converts text to the declared types:
 * right for query strings, path segments and multipart fields (all text on the wire), wrong for a
 * JSON body, which has types of its own (`true` must not become 1, `""` must not become null).
 */
export function createAjv(coerce = true, options: Options = {}) {
  const ajv = new Ajv2020(
    Object.assign({}, options, {
      coerceTypes: coerce ? 'array' : false,
      useDefaults: true,
      removeAdditional: false,
      allErrors: true,
      addUsedSchema: false,
      strict: false,
      discriminator: false,
      // Errors carry their subschema: a `not` names the fields that may not come together.
      verbose: true,
    }),
  );
  addFormats(ajv);
  // File parts arrive as their file names (see plugins/uploads.ts); the bytes are checked there.
  ajv.addFormat('binary', true);
  ajv.addKeyword({
    keyword: TEXT_SAFE,
    type: 'string',
    schemaType: 'boolean',
    // Generated code (not a validate function), so that the build can precompile it standalone.
    code: (cxt: KeywordCxt) => cxt.fail(_`${cxt.data}.includes("\u0000")`),
  });
  return ajv;
}

const isStringSchema = (s: Record<string, unknown>) => s.type === 'string' || (Array.isArray(s.type) && s.type.includes('string'));

/** A copy of `schema` where every string refuses NUL, and (for query strings) unknown parameters are refused. */
export function hardenSchema(schema: unknown, closeObject = false): unknown {
  const seen = new Map<object, unknown>();
  const walk = (node: unknown): unknown => {
    if (node === null || typeof node !== 'object') return node;
    if (seen.has(node)) return seen.get(node);
    if (Array.isArray(node)) {
      const copy: unknown[] = [];
      seen.set(node, copy);
      for (const item of node) copy.push(walk(item));
      return copy;
    }
    const copy: Record<string, unknown> = {};
    seen.set(node, copy);
    for (const [key, value] of Object.entries(node))
      copy[key] = key === 'enum' || key === 'const' || key === 'examples' ? value : walk(value);
    if (isStringSchema(copy)) copy[TEXT_SAFE] = true;
    return copy;
  };
  const out = walk(schema) as Record<string, unknown>;
  if (closeObject && out && typeof out === 'object' && out.type === 'object' && out.additionalProperties === undefined) {
    out.additionalProperties = false;
  }
  return out;
}

/**
 * A headers schema with its property names in lower case, as Node gives request headers
 * (`Idempotency-Key` arrives as `idempotency-key`). Fastify does this itself only for its own
 * validator compiler, never for a custom one like this plugin's.
 */
export function lowerCaseHeaders(schema: unknown): unknown {
  const s = schema as { properties?: Record<string, unknown>; required?: string[] };
  if (typeof s !== 'object' || s === null || !s.properties) return schema;
  const properties = Object.fromEntries(Object.entries(s.properties).map(([name, value]) => [name.toLowerCase(), value]));
  return Object.assign({}, s, { properties }, s.required ? { required: s.required.map((name) => name.toLowerCase()) } : {});
}

interface BodyRule {
  mediaTypes: string[];
  required: boolean;
}

/** What each operation's `requestBody` declares, keyed by operationId. */
function bodyRules(): Map<string, BodyRule> {
  const rules = new Map<string, BodyRule>();
  for (const { operation } of listOperations(loadContract())) {
    const body = (operation as { requestBody?: { required?: boolean; content?: object } }).requestBody;
    rules.set(operation.operationId, {
      mediaTypes: Object.keys(body?.content ?? {}),
      required: body?.required === true,
    });
  }
  return rules;
}

const mediaTypeOf = (req: FastifyRequest) => (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
const carriesBody = (req: FastifyRequest) =>
  req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

/** The query schema of an operation that declares no query parameter: none is accepted. */
const NO_QUERY = { type: 'object', properties: {}, additionalProperties: false };

export const bodyRequired = () => new ListError(400, 'Validation failed', ['body is required']);

/** A request schema as it is compiled: hardened, and with the coercion its part of the request takes. */
export interface CompiledSchema {
  coerce: boolean;
  schema: object;
}

let capture: ((compiled: CompiledSchema) => void) | undefined;
/** Hands every request schema to `collect` instead of compiling it (the build's precompile step). */
export function captureSchemas(collect: (compiled: CompiledSchema) => void): void {
  capture = collect;
}

export default fp(async function validation(app: FastifyInstance) {
  // Built only when a schema was not precompiled (running from the sources, or a changed contract).
  let ajvs: { coercing: Ajv2020; strict: Ajv2020 } | undefined;
  const ajvFor = (coerce: boolean) => {
    ajvs ??= { coercing: createAjv(true), strict: createAjv(false) };
    return coerce ? ajvs.coercing : ajvs.strict;
  };
  const precompiled = capture ? null : loadPrecompiled<Validate>('validators');
  app.setValidatorCompiler(({ schema, httpPart, contentType }) => {
    const json = httpPart === 'body' && (contentType === undefined || contentType === 'application/json');
    const source = httpPart === 'headers' ? lowerCaseHeaders(schema) : schema;
    const compiled: CompiledSchema = { coerce: !json, schema: hardenSchema(source, httpPart === 'querystring') as object };
    if (capture) {
      capture(compiled);
      return () => true;
    }
    const load = precompiled?.get(schemaKey(compiled));
    return load ? lazyValidator(load) : ajvFor(compiled.coerce).compile(compiled.schema);
  });

  // JSON bodies: their shape is bounded before they are parsed (see http/json-structure.ts), then
  // Fastify's own parser (secure-json-parse, prototype poisoning refused) reads them.
  const parseJson = app.getDefaultJsonParser(
    app.initialConfig.onProtoPoisoning ?? 'error',
    app.initialConfig.onConstructorPoisoning ?? 'error',
  );
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const breach = jsonStructureBreach(body as string);
    if (breach !== null) done(new ListError(400, 'Validation failed', [breach]), undefined);
    else parseJson(req, body as string, done);
  });

  // A body is read only in a media type its operation declares: anything else is refused before
  // parsing (Fastify would otherwise parse it and skip the schema of a media type not declared).
  const rules = bodyRules();
  app.addHook('onRoute', (route) => {
    const operationId = (route.schema as { operationId?: string } | undefined)?.operationId;
    const rule = operationId === undefined ? undefined : rules.get(operationId);
    if (!rule) return;
    // An operation without query parameters refuses any (glue gives it no schema to check them).
    const schema = route.schema as { querystring?: unknown };
    schema.querystring ??= NO_QUERY;
    const refusal = (req: FastifyRequest): AppError<'UNSUPPORTED_MEDIA_TYPE'> | null => {
      if (req.headers['content-type'] === undefined && !carriesBody(req)) return null;
      const mediaType = mediaTypeOf(req);
      if (mediaType === '' && !carriesBody(req)) return null;
      if (rule.mediaTypes.includes(mediaType)) return null;
      // Operations without a body tolerate an (ignored) JSON one, as many clients send `{}`.
      if (rule.mediaTypes.length === 0 && (mediaType === 'application/json' || mediaType === '')) return null;
      const contentType = (req.headers['content-type'] ?? '(none)').slice(0, 200);
      return new AppError(
        'UNSUPPORTED_MEDIA_TYPE',
        { contentType },
        rule.mediaTypes.length === 0
          ? 'This operation takes no body'
          : `This operation accepts a body only as ${rule.mediaTypes.join(' or ')}`,
      );
    };
    // Callback-style hooks: they run on every request and mostly have nothing to wait for.
    const preParsing: preParsingHookHandler = (req, _reply, payload, done) => {
      // An operation that declares no body takes an empty one whatever its Content-Type (many
      // clients send `application/json` on every request): the header goes, so nothing is parsed.
      if (rule.mediaTypes.length === 0 && !carriesBody(req)) {
        delete req.headers['content-type'];
        done(null, payload);
        return;
      }
      const error = refusal(req);
      if (error) done(error);
      else done(null, payload);
    };
    const preValidation: preValidationHookHandler = (req, _reply, done) => {
      if (req.body === undefined || req.body === null) done(bodyRequired());
      else done();
    };
    route.preParsing = [preParsing, ...hookList(route.preParsing)];
    if (rule.required) route.preValidation = [preValidation, ...hookList(route.preValidation)];
  });
});
