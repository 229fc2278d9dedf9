import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/*
 * Request validators compiled at build time (`dist/precompiled/`, written by build/precompile.ts):
 * compiling the contract's ~500 request schemas with ajv took seconds of CPU at every start.
 * Keyed by a hash of the schema itself, so a validator never serves another schema: a schema
 * changed since the build simply misses and is compiled at start as before.
 */
export type Validate = ((data: unknown) => boolean) & { errors?: unknown };

export const schemaKey = (schema: unknown): string => createHash('sha1').update(JSON.stringify(schema)).digest('base64url');

export const precompiledDir = fileURLToPath(new URL('../precompiled/', import.meta.url));

/** The validators of the build, or null when there are none (running from the TypeScript sources). */
export function loadValidators(): Map<string, Validate> | null {
  const index = `${precompiledDir}validators.json`;
  if (!existsSync(index)) return null;
  const names = JSON.parse(readFileSync(index, 'utf8')) as Record<string, string>;
  const functions = createRequire(import.meta.url)(`${precompiledDir}validators.cjs`) as Record<string, Validate>;
  return new Map(Object.entries(names).map(([key, name]) => [key, functions[name]!]));
}
