#!/usr/bin/env node
// Lists the server tests whose only assertions are on a status code (or on `success`), or that
// assert nothing: each should also assert what the operation promises (the body, the error detail,
// the effect read back). Exits 1 when it finds any.
//   node scripts/status-only-tests.mjs [folder]   (default packages/server/test)
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const folder = resolve(root, process.argv[2] ?? 'packages/server/test');

const files = [];
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (name.endsWith('.ts')) files.push(path);
  }
};
walk(folder);

/** An assertion on the status alone: `expect(res.status)`, `expect([a.status, b.status])`, `expect(res.body.success)`. */
const statusOnly = (subject) =>
  (/\.(status|statusCode|success)\)?$/.test(subject) && !/\.result\.\w*status$/.test(subject)) ||
  (/^\[[^\]]*\.status[^\]]*\]$/.test(subject) && !subject.includes('body'));

let found = 0;
for (const file of files) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (
      ts.isCallExpression(node) &&
      /^(it|test)(\.(only|concurrent|skip|skipIf\(.*\)|each\(.*\)))?$/s.test(node.expression.getText(source))
    ) {
      const body = node.arguments.find((a) => ts.isArrowFunction(a) || ts.isFunctionExpression(a));
      if (body) {
        const subjects = [];
        const collect = (n) => {
          if (ts.isCallExpression(n)) {
            const callee = n.expression.getText(source);
            if (callee === 'expect' || callee === 'expect.soft') subjects.push(n.arguments[0]?.getText(source) ?? '');
            // A helper that asserts (expectError, errorMessages, ...) counts as asserting more than a status.
            else if (/^expect[A-Z]\w*$|^assert\w*$|errorMessages$/.test(callee)) subjects.push(`helper ${callee}`);
          }
          ts.forEachChild(n, collect);
        };
        collect(body.body);
        if (subjects.length === 0 || subjects.every(statusOnly)) {
          found += 1;
          const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
          const name = node.arguments[0]?.getText(source).slice(0, 100);
          console.log(`${relative(root, file)}:${line + 1} ${subjects.length ? 'status only' : 'no assertion'}: ${name}`);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}
console.log(found ? `${found} tests assert only a status code, or nothing` : 'every test asserts more than a status code');
process.exit(found ? 1 : 0);
