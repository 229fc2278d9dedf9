import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { loadPrecompiled, schemaKey } from '../http/precompiled.js';

type Serialize = (data: unknown) => string;
let capture: ((schema: object) => void) | undefined;
/** Hands every success response schema to `collect` instead of compiling it (the build's precompile step). */
export function captureResponseSchemas(collect: (schema: object) => void): void {
  capture = collect;
}

type Schema = Record<string, unknown>;
const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The response schema as fast-json-stringify is given it: a value that is a schema or null
 * (`oneOf`/`anyOf` of one typed schema and `{ type: 'null' }`, the contract's form of a nullable
 * object) becomes that schema with `null` added to its type. The two serialize the same JSON,
 * but for a union fast-json-stringify runs ajv on every value to choose the branch (the whole
 * object and its date-time formats, on every row of a page), where a nullable type is one
 * `=== null` test. The contract is not changed; only what the serializer is compiled from.
 */
export function serializable(schema: unknown, seen = new Map<object, unknown>(), building = new Set<unknown>()): unknown {
  if (typeof schema !== 'object' || schema === null) return schema;
  // A schema that contains itself (a dereferenced recursive type) is rewritten once.
  if (seen.has(schema)) return seen.get(schema);
  if (Array.isArray(schema)) {
    const copy: unknown[] = [];
    seen.set(schema, copy);
    for (const item of schema) copy.push(serializable(item, seen, building));
    return copy;
  }
  const out: Schema = {};
  seen.set(schema, out);
  building.add(out);
  for (const [key, value] of Object.entries(schema)) out[key] = serializable(value, seen, building);
  building.delete(out);
  for (const union of ['oneOf', 'anyOf'] as const) {
    const branches = out[union];
    if (!Array.isArray(branches) || branches.length !== 2) continue;
    const nulls = branches.filter(
      (b) => isSchema(b) && b.type === 'null' && Object.keys(b).every((k) => k === 'type' || k === 'description'),
    );
    const typed = branches.find((b) => !nulls.includes(b));
    // A branch still being rewritten is an enclosing schema (a cycle): copying it now would copy it half done.
    if (nulls.length !== 1 || !isSchema(typed) || building.has(typed) || typed.type === undefined || typed.oneOf || typed.anyOf) continue;
    const types = Array.isArray(typed.type) ? typed.type : [typed.type];
    const { [union]: _, ...rest } = out;
    return Object.assign({}, rest, typed, { type: types.includes('null') ? types : [...types, 'null'] });
  }
  return out;
}

/**
 * Success bodies are serialized by fast-json-stringify from the contract's schema (fast, and
 * fields the contract does not declare never leave the server). Error bodies are built by the
 * error handler in the contract's envelope and serialized as they are: compiling the large error
 * schemas of every operation and status would cost seconds at start for no gain.
 */
export default fp(async function serialization(app: FastifyInstance) {
  const compilerFor = SerializerSelector()(app.getSchemas(), {});
  const precompiled = capture ? null : loadPrecompiled<Serialize>('serializers');
  app.setSerializerCompiler((route) => {
    const status = Number.parseInt(String(route.httpStatus), 10);
    if (Number.isNaN(status) || status >= 300) return (data: unknown) => JSON.stringify(data);
    if (capture) {
      capture(route.schema as object);
      return (data: unknown) => JSON.stringify(data);
    }
    const load = precompiled?.get(schemaKey(route.schema));
    if (load) return (data: unknown) => load()(data);
    return compilerFor(Object.assign({}, route, { schema: serializable(route.schema) }) as unknown as Parameters<typeof compilerFor>[0]);
  });
});
