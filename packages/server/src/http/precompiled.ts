import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/*
 * Request validators and response serializers compiled at build time (`dist/precompiled/`,
 * written by build/precompile.ts): compiling them with ajv and fast-json-stringify took seconds
 * of CPU at every start.
 * Keyed by a hash of the schema itself, so a validator never serves another schema: a schema
 * changed since the build simply misses and is compiled at start as before.
 */
export type Validate = ((data: unknown) => boolean) & { errors?: unknown };

export const schemaKey = (schema: unknown): string => createHash('sha1').update(JSON.stringify(schema)).digest('base64url');

export const precompiledDir = fileURLToPath(new URL('../precompiled/', import.meta.url));

/**
 * The functions of the build (`validators`: ajv, `serializers`: fast-json-stringify, in standalone
 * mode), or null when there are none (running from the TypeScript sources).
 */
export function loadPrecompiled<F>(kind: 'validators' | 'serializers'): Map<string, F> | null {
  const index = `${precompiledDir}${kind}.json`;
  if (!existsSync(index)) return null;
  const names = JSON.parse(readFileSync(index, 'utf8')) as Record<string, string>;
  const functions = createRequire(import.meta.url)(`${precompiledDir}${kind}.cjs`) as Record<string, F>;
  return new Map(Object.entries(names).map(([key, name]) => [key, functions[name]!]));
}

/** Writes functions as one CommonJS module of standalone module texts, with an index by schema hash. */
export function moduleOf(texts: Map<string, string>, prefix: string): { code: string; index: Record<string, string> } {
  const index: Record<string, string> = {};
  const parts: string[] = [];
  for (const [key, text] of texts) {
    const name = `${prefix}${parts.length}`;
    // One scope each keeps the modules' names apart.
    parts.push(`exports.${name} = (() => {\nconst module = { exports: {} };\n${text}\nreturn module.exports;\n})();`);
    index[key] = name;
  }
  return { code: `'use strict';\n${parts.join('\n')}\n`, index };
}
