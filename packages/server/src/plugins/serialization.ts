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
    return compilerFor(route as unknown as Parameters<typeof compilerFor>[0]);
  });
});
