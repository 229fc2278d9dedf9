import { Ajv2020, type Options } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { loadPrecompiled, schemaKey, type Validate } from '../http/precompiled.js';

// ajv-formats is CommonJS: under NodeNext its function is the default export's `default`.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (ajv: Ajv2020) => Ajv2020;

/**
 * Request validation with JSON Schema 2020-12 (the dialect of an OpenAPI 3.1 document).
 * Unknown body fields are refused (`additionalProperties: false` in the contract is enforced, not
 * stripped); query strings are coerced; defaults from the contract are applied.
 */
export function createAjv(options: Options = {}) {
  const ajv = new Ajv2020({
    ...options,
    coerceTypes: 'array',
    useDefaults: true,
    removeAdditional: false,
    allErrors: true,
    addUsedSchema: false,
    strict: false,
    discriminator: false,
  });
  addFormats(ajv);
  // File parts arrive as their file names (see plugins/uploads.ts); the bytes are checked there.
  ajv.addFormat('binary', true);
  return ajv;
}

let capture: ((schema: object) => void) | undefined;
/** Hands every request schema to `collect` instead of compiling it (the build's precompile step). */
export function captureSchemas(collect: (schema: object) => void): void {
  capture = collect;
}

export default fp(async function validation(app: FastifyInstance) {
  const ajv = createAjv();
  const precompiled = capture ? null : loadPrecompiled<Validate>('validators');
  app.setValidatorCompiler(({ schema }) => {
    if (capture) return capture(schema), () => true;
    return (precompiled?.get(schemaKey(schema)) as ReturnType<typeof ajv.compile> | undefined) ?? ajv.compile(schema);
  });
});
