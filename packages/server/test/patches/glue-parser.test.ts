import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { GLUE_PARSE_OPTIONS } from '../../src/http/glue-routes.js';
import { CHECKED, GLUE_PARSER_IMPORT, glueParserClass, glueParserSwap, Parser } from '../../src/patches/glue-parser.js';
import { installedVersion, withinChecked } from '../support/installed.js';

/*
 * The glue parser patch (src/patches/glue-parser.ts) relies on glue's internals: these tests fail
 * when an upgrade moves them, before a bundle silently parses the contract at every start again.
 */
const glueIndex = createRequire(import.meta.url).resolve('fastify-openapi-glue');

const doc = {
  openapi: '3.1.0',
  info: { title: 'patch check', version: '1' },
  paths: {
    '/things/{id}': {
      get: {
        operationId: 'getThing',
        security: [{ bearer: ['admin'] }],
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
        responses: { 200: { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } } },
      },
    },
  },
  components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
};

describe('the fastify-openapi-glue parser patch', () => {
  it('runs on a glue version it was checked against', () => {
    const version = installedVersion(CHECKED.package);
    expect(
      withinChecked(version, CHECKED),
      `${CHECKED.package} ${version} is outside ${CHECKED.from} - <${CHECKED.below}: recheck src/patches/glue-parser.ts`,
    ).toBe(true);
  });

  it("finds glue's index importing its parser by the path the bundle replaces", () => {
    const text = readFileSync(glueIndex, 'utf8');
    expect(text).toContain(`import { Parser } from "${GLUE_PARSER_IMPORT}"`);
    expect(text).toMatch(
      /new Parser\(\)[\s\S]*\.parse\(opts\.specification, \{\s*addEmptySchema: opts\.addEmptySchema \?\? false,\s*addCookieSchema: opts\.addCookieSchema \?\? false,?\s*\}\)/,
    );
  });

  it("gets from glue's parser the shape its plugin reads and the stand-in hands over", async () => {
    const GlueParser = await glueParserClass();
    const config = await new GlueParser().parse(doc, GLUE_PARSE_OPTIONS);
    expect(Object.keys(config).sort()).toEqual(expect.arrayContaining(['contentTypes', 'generic', 'routes']));
    expect(config.contentTypes).toBeInstanceOf(Set);
    expect(config.routes).toHaveLength(1);
    expect(config.routes[0]).toMatchObject({ method: 'GET', url: '/things/:id', operationId: 'getThing', openapiPath: '/things/{id}' });
    expect(config.routes[0]!.security).toEqual([{ bearer: ['admin'] }]);
    expect(config.routes[0]!.schema).toMatchObject({ params: { type: 'object', properties: { id: { type: 'integer' } } } });
    const standIn = await new Parser().parse(doc, GLUE_PARSE_OPTIONS);
    expect(standIn.routes).toEqual(config.routes);
  });

  it('makes the bundle fail when the import it replaces is never met', () => {
    const swap = glueParserSwap('dist/patches/glue-parser.js');
    let resolver: ((args: { path: string; importer: string }) => { path: string } | undefined) | undefined;
    swap.plugin.setup({
      onResolve: (_options, callback) => {
        resolver = callback;
      },
    });
    expect(() => swap.check()).toThrow(/no longer imports '\.\/lib\/Parser\.js'/);
    expect(resolver!({ path: GLUE_PARSER_IMPORT, importer: '/x/node_modules/other/index.js' })).toBeUndefined();
    const swapped = resolver!({ path: GLUE_PARSER_IMPORT, importer: glueIndex });
    expect(swapped?.path).toMatch(/dist[\\/]patches[\\/]glue-parser\.js$/);
    expect(() => swap.check()).not.toThrow();
  });
});
