import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { components, operations } from '@transport-ops/contract';

/** The bundled contract, as glue and the docs route read it. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, OperationObject | unknown>>;
  components: { schemas: Record<string, Record<string, unknown>> };
  [key: string]: unknown;
}
export interface OperationObject {
  operationId: keyof operations;
  security?: Array<Record<string, string[]>>;
  [key: string]: unknown;
}

export const contractPath = createRequire(import.meta.url).resolve('@transport-ops/contract/openapi.json');

let cached: { doc: OpenApiDocument; digest: string } | undefined;
function read() {
  if (!cached) {
    const text = readFileSync(contractPath, 'utf8');
    cached = { doc: JSON.parse(text) as OpenApiDocument, digest: createHash('sha1').update(text).digest('base64url') };
  }
  return cached;
}

export function loadContract(): OpenApiDocument {
  return read().doc;
}

/** A hash of the bundled contract's text: tells whether an artefact of the build was made from it. */
export function contractDigest(): string {
  return read().digest;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

/** Every operation of the document with its method and path. */
export function listOperations(doc: OpenApiDocument = loadContract()) {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    HTTP_METHODS.filter((m) => m in item).map((method) => ({ method, path, operation: item[method] as OperationObject })),
  );
}

type Schemas = components['schemas'];
type EnumName = { [N in keyof Schemas]: Schemas[N] extends string ? N : never }[keyof Schemas];

/** The values of an enum schema of the contract, in the contract's order (the one source of each enum). */
export function enumValues<N extends EnumName>(name: N, doc: OpenApiDocument = loadContract()): Schemas[N][] {
  const values = doc.components.schemas[name]?.enum;
  if (!Array.isArray(values)) throw new Error(`${name} is not an enum schema of the contract`);
  return values as Schemas[N][];
}

export type ErrorDetail = components['schemas']['ErrorDetail'];
export type ErrorCode = ErrorDetail['code'];

/** HTTP status of each error code, read from the `x-http-status` of the code's schema in the contract. */
export function errorStatuses(doc: OpenApiDocument = loadContract()): Map<string, number> {
  const table = new Map<string, number>();
  for (const schema of Object.values(doc.components.schemas)) {
    const code = (schema.properties as { code?: { const?: string } } | undefined)?.code?.const;
    const status = schema['x-http-status'];
    if (typeof code === 'string' && typeof status === 'number') table.set(code, status);
  }
  return table;
}
