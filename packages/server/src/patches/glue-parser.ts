/**
 * PATCH fastify-openapi-glue: its parser module is replaced in the server bundle.
 *
 * What it changes: glue's plugin (`index.js`) imports `./lib/Parser.js` and parses the whole
 * contract at every start (it validates the document against the OpenAPI schema, then resolves
 * every $ref and builds each route's schemas). The build runs glue's own parser once
 * (`parseWithGlue`, from build/precompile.ts) and stores its output (`dist/precompiled/routes.json`,
 * see http/glue-routes.ts); in the bundle, esbuild resolves glue's `./lib/Parser.js` to this
 * module's `Parser` (`glueParserSwap`, from build/bundle.ts), which hands glue that output when it
 * was made from this contract, and otherwise runs glue's parser as before. Glue itself still
 * registers each route and binds operationIds and security requirements.
 * Why a patch: glue has no option to take routes parsed beforehand; `lib/Parser.js` is not among
 * its exported paths, and the class, its `parse(specification, options)` and the shape of its
 * result are glue's internals.
 * Measured gain: about 0.8 s of CPU at every start (glue's parse of ~165 operations).
 * Checked against: fastify-openapi-glue 4.11.x (`CHECKED`); test/patches/glue-parser.test.ts
 * fails when the installed version leaves that range, when glue's index no longer imports its
 * parser by that path, or when the parser's output changes shape. The bundle step also fails
 * when the import it replaces is not found.
 */
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { OpenApiDocument } from '../contract.js';
import { type GlueConfig, type ParseOptions, precomputedRoutes } from '../http/glue-routes.js';
import { requestMediaTypes } from '../http/route-document.js';

/** The versions this patch was checked against: `from` inclusive, `below` exclusive. */
export const CHECKED = { package: 'fastify-openapi-glue', from: '4.11.0', below: '4.12.0' } as const;

/** The import in glue's `index.js` that the bundle resolves to this module. */
export const GLUE_PARSER_IMPORT = './lib/Parser.js';

/** Glue's own parser class (validation included), loaded from glue's package folder. */
export async function glueParserClass(): Promise<new () => { parse(s: unknown, o: ParseOptions): Promise<GlueConfig> }> {
  // Not among glue's exported paths: reached through its main module's folder.
  const glue = createRequire(import.meta.url).resolve('fastify-openapi-glue');
  const module = (await import(pathToFileURL(join(dirname(glue), GLUE_PARSER_IMPORT)).href)) as {
    Parser: new () => { parse(s: unknown, o: ParseOptions): Promise<GlueConfig> };
  };
  return module.Parser;
}

/** Glue's own parse of `specification` (what glue's plugin would do at start). */
export async function parseWithGlue(specification: unknown, options: ParseOptions): Promise<GlueConfig> {
  const GlueParser = await glueParserClass();
  return new GlueParser().parse(specification, options);
}

/**
 * Stands in for glue's `Parser` in the server bundle: the routes glue's parser produced at build
 * time, when they were made from this contract; otherwise glue's parser itself. The media types
 * glue checks for body parsers are those of the request bodies only (`requestMediaTypes`).
 */
export class Parser {
  async parse(specification: unknown, options: ParseOptions = {}): Promise<GlueConfig> {
    const config = precomputedRoutes(specification, options) ?? (await parseWithGlue(specification, options));
    return Object.assign({}, config, { contentTypes: requestMediaTypes(specification as OpenApiDocument) });
  }
}

/** What this patch needs of an esbuild plugin (kept structural: the server does not load esbuild). */
interface ResolvePlugin {
  name: string;
  setup(build: {
    onResolve(options: { filter: RegExp }, callback: (args: { path: string; importer: string }) => { path: string } | undefined): void;
  }): void;
}

/**
 * The esbuild plugin that resolves glue's parser import to `compiledStandIn` (this module as tsc
 * compiled it), and `check()`, which throws when the bundle never met that import: a glue that
 * loads its parser another way would otherwise silently parse at every start again.
 */
export function glueParserSwap(compiledStandIn: string): { plugin: ResolvePlugin; check(): void } {
  let replaced = false;
  const plugin: ResolvePlugin = {
    name: 'glue-parser',
    setup(b) {
      b.onResolve({ filter: /^\.\/lib\/Parser\.js$/ }, (args) => {
        if (!/fastify-openapi-glue[\\/]index\.js$/.test(args.importer)) return undefined;
        replaced = true;
        return { path: resolve(compiledStandIn) };
      });
    },
  };
  return {
    plugin,
    check() {
      if (!replaced)
        throw new Error(`fastify-openapi-glue no longer imports '${GLUE_PARSER_IMPORT}' from its index: see src/patches/glue-parser.ts`);
    },
  };
}
