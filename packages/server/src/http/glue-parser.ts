import type { OpenApiDocument } from '../contract.js';
import { type GlueConfig, type ParseOptions, parseWithGlue, precomputedRoutes } from './glue-routes.js';
import { requestMediaTypes } from './route-document.js';

/**
 * Stands in for fastify-openapi-glue's `lib/Parser.js` in the server bundle (see build/bundle.ts):
 * the routes glue's parser produced at build time, when they were made from this contract;
 * otherwise glue's parser itself. The media types glue checks for body parsers are those of the
 * request bodies only (`requestMediaTypes`).
 */
export class Parser {
  async parse(specification: unknown, options: ParseOptions = {}): Promise<GlueConfig> {
    const config = precomputedRoutes(specification, options) ?? (await parseWithGlue(specification, options));
    return Object.assign({}, config, { contentTypes: requestMediaTypes(specification as OpenApiDocument) });
  }
}
