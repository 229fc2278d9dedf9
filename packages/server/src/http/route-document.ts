import { HTTP_METHODS, loadContract, type OpenApiDocument } from '../contract.js';

const methods = new Set<string>(HTTP_METHODS);

/**
 * The contract as glue needs it to build the routes: each operation with its success responses
 * only. Error bodies are built and serialized by the error handler, never from their schemas, so
 * compiling the error schemas of every operation (the envelope with every error code, expanded
 * in each of ~900 responses) was most of glue's start-up work, for nothing.
 */
export function routeDocument(doc: OpenApiDocument): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const [path, item] of Object.entries(doc.paths)) {
    paths[path] = Object.fromEntries(
      Object.entries(item).map(([key, value]) => {
        if (!methods.has(key)) return [key, value];
        const operation = value as { responses: Record<string, unknown> };
        const responses = Object.fromEntries(Object.entries(operation.responses).filter(([status]) => status.startsWith('2')));
        return [key, Object.assign({}, operation, { responses })];
      }),
    );
  }
  return Object.assign({}, doc, { paths });
}

let routes: OpenApiDocument | undefined;
/** The route document of the bundled contract (one object for the process: see http/glue-routes.ts). */
export function routeSpecification(): OpenApiDocument {
  routes ??= routeDocument(loadContract());
  return routes;
}

/**
 * The media types of the request bodies `doc` accepts. glue checks that each type it collects has
 * a body parser and warns otherwise, but it collects the types of responses too (a PDF download, a
 * CSV export), which are never parsed: its list would warn about those at every start.
 */
export function requestMediaTypes(doc: OpenApiDocument): Set<string> {
  const types = new Set<string>();
  const bodies = (doc.components as { requestBodies?: Record<string, { content?: object }> } | undefined)?.requestBodies ?? {};
  for (const item of Object.values(doc.paths)) {
    for (const [key, value] of Object.entries(item)) {
      if (!methods.has(key)) continue;
      let body = (value as { requestBody?: { $ref?: string; content?: object } }).requestBody;
      if (body?.$ref) body = bodies[body.$ref.replace('#/components/requestBodies/', '')];
      for (const type of Object.keys(body?.content ?? {})) types.add(type);
    }
  }
  return types;
}
