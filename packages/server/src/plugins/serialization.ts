import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * Success bodies are serialized by fast-json-stringify from the contract's schema (fast, and
 * fields the contract does not declare never leave the server). Error bodies are built by the
 * error handler in the contract's envelope and serialized as they are: compiling the large error
 * schemas of every operation and status would cost seconds at start for no gain.
 */
export default fp(async function serialization(app: FastifyInstance) {
  const compilerFor = SerializerSelector()(app.getSchemas(), {});
  app.setSerializerCompiler((route) => {
    const status = Number.parseInt(String(route.httpStatus), 10);
    if (Number.isNaN(status) || status >= 300) return (data: unknown) => JSON.stringify(data);
    return compilerFor(route as unknown as Parameters<typeof compilerFor>[0]);
  });
});
