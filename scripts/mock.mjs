#!/usr/bin/env node
// `pnpm mock [--port 4010] [--host 127.0.0.1] [other Prism options]`: the Prism mock of the bundled
// contract. For contract-only work: it answers the contract's examples and validates requests, but
// keeps no state (see the README's "Mock" paragraph for its limits; `pnpm sandbox` is the stateful one).
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values, tokens } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: { port: { type: 'string', short: 'p', default: '4010' }, host: { type: 'string', short: 'h', default: '127.0.0.1' } },
  strict: false,
  tokens: true,
});
// Everything but --port/--host goes to Prism as given (e.g. --errors, --dynamic).
const passthrough = tokens
  .filter((t) => !(t.kind === 'option' && (t.name === 'port' || t.name === 'host' || t.name === 'p' || t.name === 'h')))
  .map((t) => (t.kind === 'option' ? (t.value === undefined ? t.rawName : `${t.rawName}=${t.value}`) : t.value));
if (!/^\d+$/.test(String(values.port))) {
  console.error(`--port must be a number, got ${values.port}`);
  process.exit(2);
}
const prism = spawn(
  join(root, 'node_modules/.bin/prism'),
  ['mock', join(root, 'packages/contract/dist/openapi.yaml'), '--port', String(values.port), '--host', String(values.host), ...passthrough],
  { stdio: 'inherit' },
);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => prism.kill(signal));
prism.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
