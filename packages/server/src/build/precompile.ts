import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { _ } from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { buildApp } from '../app.js';
import { testConfig } from '../config.js';
import { connect } from '../db/connect.js';
import { precompiledDir, schemaKey } from '../http/precompiled.js';
import { captureSchemas, createAjv } from '../plugins/validation.js';

/**
 * Build step (after tsc): builds the app once to collect the request schemas Fastify asks to
 * compile, and writes their ajv validators as one CommonJS module with an index by schema hash.
 */
const schemas = new Map<string, object>();
captureSchemas((schema) => void schemas.set(schemaKey(schema), schema));
const db = connect({ kind: 'pglite', dataDir: 'memory://' });
const app = await buildApp(testConfig({ seedDemoData: false }), { db });
await app.ready();
await app.close();
await db.destroy();

const ajv = createAjv({ code: { source: true, formats: _`require("ajv-formats/dist/formats").fullFormats` } });
const standalone = ((standaloneCode as unknown as { default?: unknown }).default ?? standaloneCode) as (a: typeof ajv, f: unknown) => string;
const index: Record<string, string> = {};
const modules: string[] = [];
for (const [key, schema] of schemas) {
  const name = `v${modules.length}`;
  // Each validator is its own CommonJS module text; one scope each keeps their names apart.
  modules.push(`exports.${name} = (() => {\nconst module = { exports: {} };\n${standalone(ajv, ajv.compile(schema))}\nreturn module.exports;\n})();`);
  index[key] = name;
}
rmSync(precompiledDir, { recursive: true, force: true });
mkdirSync(precompiledDir, { recursive: true });
writeFileSync(`${precompiledDir}validators.cjs`, `'use strict';\n${modules.join('\n')}\n`);
writeFileSync(`${precompiledDir}validators.json`, JSON.stringify(index));
console.log(`precompiled ${schemas.size} request validators into ${precompiledDir}`);
