import { type GlueConfig, type ParseOptions, parseWithGlue, precomputedRoutes } from './glue-routes.js';

/**
 * Stands in for fastify-openapi-glue's `lib/Parser.js` in the server bundle (see build/bundle.ts):
 * the routes glue's parser produced at build time, when they were made from this contract;
 * otherwise glue's parser itself.
 */
export class Parser {
  async parse(specification: unknown, options: ParseOptions = {}): Promise<GlueConfig> {
    return precomputedRoutes(specification, options) ?? parseWithGlue(specification, options);
  }
}
