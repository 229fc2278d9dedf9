import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileFunction } from 'node:vm';
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';

/*
 * Request validators and response serializers compiled at build time (`dist/precompiled/`,
 * written by build/precompile.ts): compiling them with ajv and fast-json-stringify took seconds
 * of CPU at every start.
 * Keyed by a hash of the schema itself, so a validator never serves another schema: a schema
 * changed since the build simply misses and is compiled at start as before.
 */
export type Validate = ((data: unknown) => boolean) & { errors?: FastifySchemaValidationError[] | null };

export const schemaKey = (schema: unknown): string => createHash('sha1').update(JSON.stringify(schema)).digest('base64url');

/**
 * `dist/precompiled/` of the build this code runs from, whether from the compiled modules
 * (`dist/http/`) or from a bundle (`dist/server.js`, `dist/db/cli.js`); beside the sources (none
 * there) when running from `src/`.
 */
export const precompiledDir = ((file: string) => {
  const dist = file.lastIndexOf(`${sep}dist${sep}`);
  return `${dist === -1 ? join(dirname(file), '..', 'precompiled') : join(file.slice(0, dist), 'dist', 'precompiled')}${sep}`;
})(fileURLToPath(import.meta.url));

/**
 * Loaders of the functions of the build (`validators`: ajv, `serializers`: fast-json-stringify, in
 * standalone mode), or null when there are none (running from the TypeScript sources). One
 * CommonJS file each, read and compiled the first time its function is used: compiling all of
 * them (3 MB) at start cost a quarter of a second.
 */
export function loadPrecompiled<F>(kind: 'validators' | 'serializers'): Map<string, () => F> | null {
  const index = `${precompiledDir}${kind}.json`;
  if (!existsSync(index)) return null;
  const names = JSON.parse(readFileSync(index, 'utf8')) as Record<string, string>;
  return new Map(
    Object.entries(names).map(([key, name]) => {
      let loaded: F | undefined;
      return [key, () => (loaded ??= evaluateBuilt(`${precompiledDir}${kind}/${name}.cjs`) as F)];
    }),
  );
}

/**
 * What a CommonJS file of the build exports. These files are generated data, not modules of the
 * source tree: their text is compiled here as Node compiles a CommonJS module (the same wrapper's
 * parameters; `require` resolves from the file's own place, for the libraries' runtime helpers they
 * name), so no import of this file names a path made at run time.
 */
export function evaluateBuilt(file: string): unknown {
  const module = { exports: {} as unknown };
  const wrapper = compileFunction(readFileSync(file, 'utf8'), ['exports', 'require', 'module', '__filename', '__dirname'], {
    filename: file,
  });
  wrapper.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  return module.exports;
}

/** A validator that loads `load`'s on its first call (ajv reports errors on the function itself). */
export function lazyValidator(load: () => Validate): Validate {
  const validate: Validate = (data) => {
    const real = load();
    const valid = real(data);
    validate.errors = real.errors;
    return valid;
  };
  return validate;
}

/** Names the standalone module texts (`<prefix><n>`), with an index of the names by schema hash. */
export function filesOf(texts: Map<string, string>, prefix: string): { files: Map<string, string>; index: Record<string, string> } {
  const index: Record<string, string> = {};
  const files = new Map<string, string>();
  for (const [key, text] of texts) {
    const name = `${prefix}${files.size}`;
    files.set(name, text);
    index[key] = name;
  }
  return { files, index };
}
