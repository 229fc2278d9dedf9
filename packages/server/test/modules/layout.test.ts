import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/*
 * The module file scheme (README, "Layout"): SQL lives only in `repository.ts` or
 * `<area>-repository.ts`; handlers, mappers, rules and named services build no query.
 */
const MODULES = fileURLToPath(new URL('../../src/modules', import.meta.url));
const SQL = /\b(selectFrom|insertInto|updateTable|deleteFrom)\(|\bsql(<[^>]*>)?`/;
const REPOSITORY = /(^|-)repository\.ts$/;

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
});
