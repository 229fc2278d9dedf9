import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { _ } from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { buildApp } from '../app.js';
import { testConfig } from '../config.js';
import { connect } from '../db/connect.js';
import { GLUE_PARSE_OPTIONS, routesArtefact, routesFile } from '../http/glue-routes.js';
import { filesOf, precompiledDir, schemaKey } from '../http/precompiled.js';
import { routeSpecification } from '../http/route-document.js';
import { parseWithGlue } from '../patches/glue-parser.js';
import { captureResponseSchemas, serializable } from '../plugins/serialization.js';
import { type CompiledSchema, captureSchemas, createAjv } from '../plugins/validation.js';

/**
 * Build step (after tsc, before the bundle): builds the app once to collect the request and
 * response schemas Fastify asks to compile, and writes their ajv validators and fast-json-stringify
 * serializers (standalone code) as CommonJS modules, one file each, with an index by schema hash;
 * then glue's parse of the contract into routes (see http/glue-routes.ts).
 */
const schemas = new Map<string, CompiledSchema>();
const responses = new Map<string, object>();
captureSchemas((compiled) => void schemas.set(schemaKey(compiled), compiled));
captureResponseSchemas((schema) => void responses.set(schemaKey(schema), schema));
const db = connect({ kind: 'pglite', dataDir: 'memory://' });
const app = await buildApp(testConfig({ seedDemoData: false }), { db });
await app.ready();
await app.close();
await db.destroy();

const code = { code: { source: true, formats: _`require("ajv-formats/dist/formats").fullFormats` } };
const ajvs = { coercing: createAjv(true, code), strict: createAjv(false, code) };
const standalone = ((standaloneCode as unknown as { default?: unknown }).default ?? standaloneCode) as (a: unknown, f: unknown) => string;
const validators = filesOf(
  new Map(
    [...schemas].map(([key, { coerce, schema }]) => {
      const ajv = coerce ? ajvs.coercing : ajvs.strict;
      return [key, standalone(ajv, ajv.compile(schema))];
    }),
  ),
  'v',
);
const serializerCode = SerializerSelector()({}, { mode: 'standalone' }) as unknown as (route: { schema: object }) => string;
const serializers = filesOf(
  new Map([...responses].map(([key, schema]) => [key, serializerCode({ schema: serializable(schema) as object })])),
  's',
);

rmSync(precompiledDir, { recursive: true, force: true });
mkdirSync(precompiledDir, { recursive: true });
for (const [kind, { files, index }] of Object.entries({ validators, serializers })) {
  mkdirSync(`${precompiledDir}${kind}`);
  for (const [name, text] of files) writeFileSync(`${precompiledDir}${kind}/${name}.cjs`, text);
  writeFileSync(`${precompiledDir}${kind}.json`, JSON.stringify(index));
}
const routes = await parseWithGlue(routeSpecification(), GLUE_PARSE_OPTIONS);
writeFileSync(routesFile, routesArtefact(routes, GLUE_PARSE_OPTIONS));
console.log(
  `precompiled ${schemas.size} request validators, ${responses.size} response serializers and ${routes.routes.length} routes into ${precompiledDir}`,
);
