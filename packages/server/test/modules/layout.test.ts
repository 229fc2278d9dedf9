import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/*
 * The module file scheme (README, "Layout"): SQL lives only in `repository.ts` or
 * `<area>-repository.ts`; handlers, mappers, rules and named services build no query. Handler
 * files call repositories, rules and services, never another handler file (only a module's
 * `handlers.ts` assembles them into its map). A module's error factories live in its `rules.ts`.
 * Imports point down: `lib/` and `db/` never import a plugin or a module (who is calling, for
 * instance, is `lib/identity.ts`, which plugins and modules import).
 */
const SRC = fileURLToPath(new URL('../../src', import.meta.url));
const MODULES = join(SRC, 'modules');
const SQL = /\b(selectFrom|insertInto|updateTable|deleteFrom)\(|\bsql(<[^>]*>)?`/;
const REPOSITORY = /(^|-)repository\.ts$/;
const HANDLER_IMPORT = /from '\.{1,2}\/(?:[\w-]+\/)*[\w-]*handlers\.js'/g;
/** An exported function or constant that makes an AppError or a ListError (an error factory). */
const ERROR_FACTORY =
  /export (?:const \w+ = \([^)]*\)(?:: \w+)?\s*=>\s*new (?:AppError|ListError)|function \w+\([^)]*\)[^{]*\{\s*return new (?:AppError|ListError))/;

/** A relative import of a file under `src/plugins/` or `src/modules/`, from a file one folder below `src/` or deeper. */
const UPWARD_IMPORT = /(?:\bfrom|\bimport\s*\()\s*'(?:\.\.\/)+(plugins|modules)\/[^']*'/g;

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
  it('keep lib/ and db/ free of imports from plugins/ and modules/', () => {
    const files = ['lib', 'db'].flatMap((dir) => sourceFiles(join(SRC, dir)));
    expect(files.length).toBeGreaterThan(30);
    const offenders = files.flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(UPWARD_IMPORT)].map((m) => `${relative(SRC, file)}: ${m[0]}`),
    );
    expect(offenders).toEqual([]);
    // The check finds such imports (lib/scope.ts once took the caller's type from the security plugin).
    expect("import type { AuthContext } from '../plugins/security.js';".match(UPWARD_IMPORT)).toHaveLength(1);
    expect("const m = await import('../../modules/auth/tokens.js');".match(UPWARD_IMPORT)).toHaveLength(1);
    expect("import { ownedBy } from './scope.js';".match(UPWARD_IMPORT)).toBeNull();
  });
});
