import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/*
 * The module file scheme (README, "Layout"): SQL lives only in `repository.ts` or
 * `<area>-repository.ts`; handlers, mappers, rules and named services build no query. Handler
 * files call repositories, rules and services, never another handler file (only a module's
 * `handlers.ts` assembles them into its map). A module's error factories live in its `rules.ts`.
 * Imports point one way between the layers (see LAYERS below).
 */
const SRC = fileURLToPath(new URL('../../src', import.meta.url));
const MODULES = join(SRC, 'modules');
const SQL = /\b(selectFrom|insertInto|updateTable|deleteFrom)\(|\bsql(<[^>]*>)?`/;
const REPOSITORY = /(^|-)repository\.ts$/;
const HANDLER_IMPORT = /from '\.{1,2}\/(?:[\w-]+\/)*[\w-]*handlers\.js'/g;
/** An exported function or constant that makes an AppError or a ListError (an error factory). */
const ERROR_FACTORY =
  /export (?:const \w+ = \([^)]*\)(?:: \w+)?\s*=>\s*new (?:AppError|ListError)|function \w+\([^)]*\)[^{]*\{\s*return new (?:AppError|ListError))/;

/**
 * The server's layers (the shared architecture whiteboard's parts) and the imports each must never
 * make: a helper (`lib/`) knows no HTTP answer, request stage or domain; storage (`db/`) knows no
 * stage or domain; a domain (`modules/`) does not reach into the request stages, nor a stage
 * (`plugins/`) into a domain; binding (`http/`) does not reach into the stages. What two layers
 * both need lives below them (the error classes in lib/errors.ts, upload screening in
 * lib/uploads.ts, the token error in lib/identity.ts).
 */
const LAYERS = ['lib', 'db', 'http', 'plugins', 'modules'] as const;
type Layer = (typeof LAYERS)[number];
const NEVER: Record<Layer, Layer[]> = {
  lib: ['http', 'plugins', 'modules'],
  db: ['plugins', 'modules'],
  http: ['plugins'],
  plugins: ['modules'],
  modules: ['plugins'],
};
/** Every way a module is named: `import ... from`, `export ... from`, a bare `import '...'`, `import(...)`, `require(...)`. */
const MODULE_NAME = /(?:\bfrom\s*|\bimport\s*)'([^']+)'|\b(?:import|require)\s*\(\s*([^)]*)\)/g;

/** The imports of `text` (a file at `file`): the resolved path of each relative one, and those named by an expression. */
function importsOf(file: string, text: string): { paths: string[]; expressions: string[] } {
  const paths: string[] = [];
  const expressions: string[] = [];
  for (const m of text.matchAll(MODULE_NAME)) {
    const literal = m[1] ?? /^'([^']+)'$/.exec(m[2]!.trim())?.[1];
    if (literal === undefined) expressions.push(m[0]);
    else if (literal.startsWith('.')) paths.push(resolve(dirname(file), literal));
  }
  return { paths, expressions };
}

const layerOf = (path: string): Layer | undefined => {
  const first = relative(SRC, path).split(sep)[0];
  return LAYERS.find((layer) => layer === first);
};

/** The forbidden arrows of `file` given its text, as `file -> imported` lines. */
function layerBreaks(file: string, text: string): string[] {
  const from = layerOf(file);
  if (from === undefined) return [];
  const { paths, expressions } = importsOf(file, text);
  return [
    ...paths
      .filter((path) => NEVER[from].includes(layerOf(path) as Layer))
      .map((path) => `${relative(SRC, file)} -> ${relative(SRC, path)}`),
    // A module named at run time could be any layer's: it would pass unseen here and in the drawings.
    ...expressions.map((expression) => `${relative(SRC, file)} names a module by an expression: ${expression}`),
  ];
}

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });

describe('module files', () => {
  const files = sourceFiles(MODULES);

  it('finds the module sources', () => {
    expect(files.filter((file) => REPOSITORY.test(file)).length).toBeGreaterThan(10);
  });

  it('keep SQL in repositories', () => {
    const offenders = files
      .filter((file) => !REPOSITORY.test(file.split('/').pop()!))
      .filter((file) => SQL.test(readFileSync(file, 'utf8')))
      .map((file) => relative(MODULES, file));
    expect(offenders).toEqual([]);
  });

  it("let only a module's handlers.ts import handler files: handler files call repositories, rules and services", () => {
    const offenders = files
      .filter((file) => file.split('/').pop() !== 'handlers.ts' && file !== join(MODULES, 'index.ts'))
      .flatMap((file) => [...readFileSync(file, 'utf8').matchAll(HANDLER_IMPORT)].map((m) => `${relative(MODULES, file)}: ${m[0]}`));
    expect(offenders).toEqual([]);
    // The check finds such an import (it once caught admin-handlers.ts importing from trade-handlers.ts).
    expect("import { reload } from './trade-handlers.js';".match(HANDLER_IMPORT)).toHaveLength(1);
  });

  it("keep a module's error factories in its rules.ts", () => {
    const offenders = files
      .filter((file) => file.split('/').pop() !== 'rules.ts')
      .filter((file) => ERROR_FACTORY.test(readFileSync(file, 'utf8')))
      .map((file) => relative(MODULES, file));
    expect(offenders).toEqual([]);
    expect(files.filter((file) => file.endsWith('/errors.ts')).map((file) => relative(MODULES, file))).toEqual([]);
    expect(ERROR_FACTORY.test("export const topicNotFound = (topicId: number) => new AppError('TOPIC_NOT_FOUND', { topicId }, 'x');")).toBe(
      true,
    );
  });
});

describe('layers', () => {
  it('import one way: lib, db, http, plugins and modules never import the layers they must not know', () => {
    const files = LAYERS.flatMap((dir) => sourceFiles(join(SRC, dir)));
    expect(files.length).toBeGreaterThan(200);
    const breaks = files.flatMap((file) => layerBreaks(file, readFileSync(file, 'utf8')));
    expect(breaks).toEqual([]);
  });

  it('find each kind of forbidden import, however it is written', () => {
    const at = (path: string) => join(SRC, path);
    expect(layerBreaks(at('lib/paging.ts'), "import { ListError } from '../http/errors.js';")).toEqual(['lib/paging.ts -> http/errors.js']);
    expect(layerBreaks(at('lib/scope.ts'), "import type { AuthContext } from '../plugins/security.js';")).toHaveLength(1);
    expect(layerBreaks(at('lib/x.ts'), "export { TokenInvalid } from '../modules/auth/tokens.js';")).toHaveLength(1);
    expect(layerBreaks(at('db/x.ts'), "const m = await import('../modules/auth/tokens.js');")).toHaveLength(1);
    expect(layerBreaks(at('modules/profiles/handlers.ts'), "import {\n  screenUploads,\n} from '../../plugins/uploads.js';")).toEqual([
      'modules/profiles/handlers.ts -> plugins/uploads.js',
    ]);
    expect(layerBreaks(at('plugins/security.ts'), "import { TokenInvalid } from '../modules/auth/tokens.js';")).toHaveLength(1);
    expect(layerBreaks(at('http/bind.ts'), "import { policies } from '../plugins/write-safety.js';")).toHaveLength(1);
    expect(layerBreaks(at('http/write-safety/plugin.ts'), "import '../../plugins/uploads.js';")).toHaveLength(1);
    expect(layerBreaks(at('http/precompiled.ts'), 'return require(dir + kind);')).toHaveLength(1);
    // What is allowed passes: down the layers, within one, and packages.
    expect(
      layerBreaks(
        at('modules/auth/handlers.ts'),
        "import { AppError } from '../../lib/errors.js';\nimport { x } from './tokens.js';\nimport { y } from '../../http/route-hooks.js';\nconst p = await import('pdfkit');",
      ),
    ).toEqual([]);
    expect(layerBreaks(at('plugins/security.ts'), "import { policies } from '../http/write-safety/plugin.js';")).toEqual([]);
  });
});
