import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/*
 * Whatever depends on a library's non-public behaviour lives in `src/patches/`, one file per patch,
 * each with its test in this folder (packages/server/README.md, "Library patches"). These checks keep the rest of
 * the sources on public APIs: no private member (`._name`), no module path a package does not
 * export, no package folder reached by path, no code generated at run time.
 */
const SRC = fileURLToPath(new URL('../../src', import.meta.url));
const PATCHES = join(SRC, 'patches');
const require = createRequire(join(SRC, 'server.ts'));

/** Properties of the project's own objects whose names start with an underscore (lib/paging.ts's page parameters). */
const OWN_UNDERSCORED = new Set(['_limit', '_offset']);

/**
 * Subpaths of packages without an `exports` map that their documentation offers as entry points:
 * ajv's JSON Schema 2020-12 class and standalone code (ajv.js.org, "JSON Schema draft 2020-12",
 * "Standalone validation code"), fastify's published type declarations.
 */
const DOCUMENTED_SUBPATHS = new Set(['ajv/dist/2020.js', 'ajv/dist/standalone/index.js', 'fastify/types/schema.js']);

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });

/** `@scope/name` or `name`, and the subpath after it (`''` for the package itself). */
function splitSpecifier(specifier: string): { name: string; subpath: string } {
  const parts = specifier.split('/');
  const length = specifier.startsWith('@') ? 2 : 1;
  return { name: parts.slice(0, length).join('/'), subpath: parts.slice(length).join('/') };
}

function manifestOf(name: string): { exports?: unknown } | null {
  let dir = dirname(require.resolve(name));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; exports?: unknown };
      if (manifest.name === name) return manifest;
    } catch {
      // no package.json at this level
    }
    if (dirname(dir) === dir) return null;
    dir = dirname(dir);
  }
}

/** Whether `specifier` names an entry point its package offers (its `exports` map, or the documented list). */
export function isPublicSpecifier(specifier: string): boolean {
  if (specifier.startsWith('node:') || specifier.startsWith('@transport-ops/')) return true;
  const { name, subpath } = splitSpecifier(specifier);
  if (subpath === '') return true;
  if (DOCUMENTED_SUBPATHS.has(specifier)) return true;
  const exports = manifestOf(name)?.exports;
  if (typeof exports !== 'object' || exports === null || Object.keys(exports).every((key) => !key.startsWith('.'))) return false;
  const wanted = `./${subpath}`;
  return Object.keys(exports).some((key) => {
    if (key === wanted || key === wanted.replace(/\.js$/, '')) return true;
    const star = key.indexOf('*');
    return star !== -1 && wanted.startsWith(key.slice(0, star)) && wanted.endsWith(key.slice(star + 1));
  });
}

const SPECIFIERS = /(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|\.resolve\s*\(\s*)'([^'.][^']*)'/g;
const PRIVATE_MEMBER = /\.(_[A-Za-z]\w*)/g;
const GENERATED_CODE = /\bnew Function\s*\(|\beval\s*\(/;
const PACKAGE_FOLDER =
  /\.resolve\s*\(\s*'(?!@transport-ops\/)[^'.][^']*'\s*\)[\s\S]*\bdirname\s*\(|\bdirname\s*\([^)]*\.resolve\s*\(\s*'(?!@transport-ops\/)[^'.]/;

/** What a source text does that belongs in a patch, one line per finding. */
export function fenceFindings(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\/|(^|[^:'"`])\/\/.*$/gm, '$1');
  const findings: string[] = [];
  for (const [, member] of code.matchAll(PRIVATE_MEMBER)) if (!OWN_UNDERSCORED.has(member!)) findings.push(`private member ${member}`);
  for (const [, specifier] of code.matchAll(SPECIFIERS))
    if (!isPublicSpecifier(specifier!)) findings.push(`non-exported module ${specifier}`);
  if (GENERATED_CODE.test(code)) findings.push('code generated at run time');
  if (PACKAGE_FOLDER.test(code)) findings.push("a package's folder reached by path");
  return findings;
}

describe('library patches', () => {
  const files = sourceFiles(SRC);
  const patches = sourceFiles(PATCHES);

  it('find what belongs in a patch (the check itself)', () => {
    expect(fenceFindings('const q = query as { _result: { parseRow: unknown } };\nq._result.parseRow = null;')).toEqual([
      'private member _result',
    ]);
    expect(fenceFindings("const S = require('@fastify/rate-limit/store/LocalStore.js');")).toEqual([
      'non-exported module @fastify/rate-limit/store/LocalStore.js',
    ]);
    expect(fenceFindings("import { x } from 'fastify-openapi-glue/lib/Parser.js';")).toEqual([
      'non-exported module fastify-openapi-glue/lib/Parser.js',
    ]);
    expect(fenceFindings("const build = new Function('v', body);")).toEqual(['code generated at run time']);
    expect(
      fenceFindings("const glue = createRequire(import.meta.url).resolve('fastify-openapi-glue');\njoin(dirname(glue), 'lib');"),
    ).toEqual(["a package's folder reached by path"]);
    expect(
      fenceFindings(
        "import pg from 'pg';\nimport { sql } from 'kysely';\nimport { postgres } from 'kysely/helpers/postgres';\nimport { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';\n// a comment on ._private\np._limit = 1;",
      ),
    ).toEqual([]);
  });

  it('are the only sources that reach into libraries', () => {
    const offenders = files
      .filter((file) => !file.startsWith(`${PATCHES}/`))
      .flatMap((file) => fenceFindings(readFileSync(file, 'utf8')).map((finding) => `${relative(SRC, file)}: ${finding}`));
    expect(offenders).toEqual([]);
  });

  it('each say what they change, why, the gain, the versions checked, and have their own test', () => {
    expect(patches.length).toBeGreaterThanOrEqual(2);
    for (const patch of patches) {
      const text = readFileSync(patch, 'utf8');
      const name = relative(PATCHES, patch).replace(/\.ts$/, '');
      expect(text, name).toMatch(/^\/\*\*\n \* PATCH /);
      for (const part of ['What it changes:', 'Why a patch:', 'Measured gain:', 'Checked against:'])
        expect(text, `${name}: ${part}`).toContain(part);
      expect(text, name).toMatch(/export const CHECKED = \{ package: '[^']+', from: '\d+\.\d+\.\d+', below: '\d+\.\d+\.\d+' \}/);
      const test = readFileSync(fileURLToPath(new URL(`./${name}.test.ts`, import.meta.url)), 'utf8');
      expect(test, `${name}.test.ts`).toContain(`src/patches/${name}.js`);
      expect(test, `${name}.test.ts`).toContain('withinChecked(');
    }
  });
});
