import { existsSync, readFileSync } from 'node:fs';
import { contractDigest } from '../contract.js';
import { precompiledDir } from './precompiled.js';
import { routeSpecification } from './route-document.js';

/*
 * fastify-openapi-glue turns the contract into routes with its parser at every start: it first
 * validates the whole document against the OpenAPI schema (@seriousme/openapi-schema-validator),
 * then resolves every $ref and builds each route's schemas, about 0.8 s of CPU. The build has
 * already validated the contract (redocly lint, gen), so the build runs glue's own parser once
 * and keeps its output (`dist/precompiled/routes.json`). In the server bundle, glue's parser
 * module is replaced by patches/glue-parser.ts, which hands glue that output: glue itself still
 * registers each route and binds its operationId to the handler and its security requirement to
 * the security handlers.
 */

/** Glue's parse options (`addEmptySchema`, `addCookieSchema`). */
export type ParseOptions = Record<string, unknown>;

/** The options glue's plugin hands its parser when, as in app.ts, neither is set. */
export const GLUE_PARSE_OPTIONS: ParseOptions = { addEmptySchema: false, addCookieSchema: false };

/** One route as glue's parser describes it. */
export interface GlueRoute {
  method: string;
  url: string;
  schema: Record<string, unknown>;
  openapiPath: string;
  operationId: string;
  /** The operation object as the document has it: glue never reads it when it registers routes. */
  openapiSource?: unknown;
  security?: unknown;
  config?: unknown;
}

/** What glue's parser returns and glue's plugin reads. */
export interface GlueConfig {
  generic: Record<string, unknown>;
  routes: GlueRoute[];
  contentTypes: Set<string>;
  securitySchemes?: Record<string, unknown>;
  prefix?: string;
}

interface Artefact {
  /** The contract the routes were parsed from (`contractDigest()`). */
  contract: string;
  options: ParseOptions;
  config: Omit<GlueConfig, 'contentTypes'> & { contentTypes: string[] };
}

export const routesFile = `${precompiledDir}routes.json`;

/**
 * The text of `routes.json`: glue's parse of the route document, as JSON (the set of content
 * types as a list). The operation objects (`openapiSource`, ~1 MB with every $ref resolved) are
 * left out: glue's plugin never reads them.
 */
export function routesArtefact(config: GlueConfig, options: ParseOptions): string {
  const artefact: Artefact = {
    contract: contractDigest(),
    options,
    config: Object.assign({}, config, {
      routes: config.routes.map(({ openapiSource: _, ...route }) => route),
      contentTypes: [...config.contentTypes],
    }),
  };
  return JSON.stringify(artefact);
}

/** Glue's config from the text of `routes.json`, or null when it was made from another contract or with other options. */
export function readRoutesArtefact(text: string, options: ParseOptions): GlueConfig | null {
  const artefact = JSON.parse(text) as Artefact;
  if (artefact.contract !== contractDigest()) return null;
  if (JSON.stringify(artefact.options) !== JSON.stringify(options)) return null;
  return Object.assign({}, artefact.config, { contentTypes: new Set(artefact.config.contentTypes) });
}

/**
 * The routes parsed at build time, when `specification` is this process's route document
 * (`routeSpecification()`) and the build's `routes.json` was made from the same contract with the
 * same options; otherwise null (the caller parses with glue).
 */
export function precomputedRoutes(specification: unknown, options: ParseOptions): GlueConfig | null {
  if (specification !== routeSpecification() || !existsSync(routesFile)) return null;
  return readRoutesArtefact(readFileSync(routesFile, 'utf8'), options);
}
