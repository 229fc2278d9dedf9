import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { contractDigest } from '../../src/contract.js';
import { Parser, parseWithGlue } from '../../src/patches/glue-parser.js';
import { GLUE_PARSE_OPTIONS, type GlueConfig, precomputedRoutes, readRoutesArtefact, routesArtefact } from '../../src/http/glue-routes.js';
import { routeSpecification } from '../../src/http/route-document.js';
import { createTestApp } from '../support/app.js';

/** What glue's plugin reads of its parser's output (the operation objects are not kept). */
const asRegistered = (config: GlueConfig) => ({ ...config, routes: config.routes.map(({ openapiSource: _, ...route }) => route) });

const builtRoutes = fileURLToPath(new URL('../../dist/precompiled/routes.json', import.meta.url));
const builtFromThisContract = existsSync(builtRoutes) && JSON.parse(readFileSync(builtRoutes, 'utf8')).contract === contractDigest();

describe('routes parsed at build time for fastify-openapi-glue', () => {
  let fresh: GlueConfig;
  beforeAll(async () => {
    fresh = await parseWithGlue(routeSpecification(), GLUE_PARSE_OPTIONS);
  });

  it('keeps every route of glue’s parse of the contract, with its schemas, security and config', () => {
    const stored = readRoutesArtefact(routesArtefact(fresh, GLUE_PARSE_OPTIONS), GLUE_PARSE_OPTIONS);
    expect(stored).toEqual(asRegistered(fresh));
    expect(stored?.contentTypes).toEqual(fresh.contentTypes);
    expect(stored?.routes.length).toBeGreaterThan(150);
  });

  it.runIf(builtFromThisContract)('in the build (dist/precompiled/routes.json), equals a fresh parse of the contract', () => {
    expect(readRoutesArtefact(readFileSync(builtRoutes, 'utf8'), GLUE_PARSE_OPTIONS)).toEqual(asRegistered(fresh));
  });

  it('are not used for another contract or other parse options', () => {
    const text = routesArtefact(fresh, GLUE_PARSE_OPTIONS);
    const other = JSON.stringify({ ...JSON.parse(text), contract: 'another contract' });
    expect(readRoutesArtefact(other, GLUE_PARSE_OPTIONS)).toBeNull();
    expect(readRoutesArtefact(text, { ...GLUE_PARSE_OPTIONS, addEmptySchema: true })).toBeNull();
  });

  it('are offered only for this process’s route document: any other document is parsed by glue', async () => {
    const doc = {
      openapi: '3.1.0',
      info: { title: 'other', version: '1' },
      paths: { '/things/{id}': { get: { operationId: 'getThing', responses: { 200: { description: 'ok' } } } } },
    };
    expect(precomputedRoutes(doc, GLUE_PARSE_OPTIONS)).toBeNull();
    const parsed = await new Parser().parse(doc, GLUE_PARSE_OPTIONS);
    expect(parsed.routes.map((r) => [r.method, r.url, r.operationId])).toEqual([['GET', '/things/:id', 'getThing']]);
  });

  it('hand glue the media types of request bodies only, each of which has a parser: no warning at start', async () => {
    // glue's own list holds the types of responses too (downloads, exports), which nothing parses.
    expect(fresh.contentTypes).toContain('application/pdf');
    const handed = (await new Parser().parse(routeSpecification(), GLUE_PARSE_OPTIONS)).contentTypes;
    expect([...handed].sort()).toEqual(['application/json', 'multipart/form-data']);
    const app = await createTestApp();
    try {
      expect([...handed].filter((type) => !app.app.hasContentTypeParser(type))).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
