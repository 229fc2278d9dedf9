#!/usr/bin/env node
// Builds what the server runs: the bundled contract and its types (`pnpm gen`), the docs page,
// the SDK and the server's JavaScript (packages/server/dist).
//   node scripts/build.mjs             build everything
//   node scripts/build.mjs --if-stale  build only the steps whose outputs are missing or whose
//                                      sources' contents changed since they were built (what
//                                      `pnpm start` runs first: a no-op on later starts, and after a
//                                      `pnpm gen` that changed nothing)
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { digest, isStale, readState, writeState } from './lib/build-state.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const at = (...p) => join(root, ...p);

const steps = [
  {
    name: 'contract bundle and types',
    inputs: [at('openapi'), at('redocly.yaml')],
    outputs: [at('packages/contract/dist/openapi.json'), at('packages/contract/dist/openapi.yaml')],
    run: () => execFileSync(process.execPath, [at('scripts/gen.mjs')], { stdio: 'inherit', cwd: root }),
  },
  {
    name: 'docs page',
    inputs: [
      at('packages/contract/dist/openapi.docs.json'),
      at('packages/contract/dist/openapi.docs.production.json'),
      at('scripts/docs.mjs'),
    ],
    outputs: [at('packages/contract/dist/docs.html'), at('packages/contract/dist/docs.production.html')],
    run: () => execFileSync(process.execPath, [at('scripts/docs.mjs')], { stdio: 'inherit', cwd: root }),
  },
  {
    name: 'SDK',
    inputs: [at('packages/sdk/src')],
    outputs: [at('packages/sdk/dist/index.js'), at('packages/sdk/dist/schema.d.ts')],
    run: () => execFileSync('pnpm', ['run', 'build'], { stdio: 'inherit', cwd: at('packages/sdk') }),
  },
  {
    name: 'server',
    inputs: [
      at('packages/server/src'),
      at('packages/server/tsconfig.build.json'),
      at('packages/contract/src'),
      at('packages/contract/dist/openapi.json'),
    ],
    outputs: [
      at('packages/server/dist/server.js'),
      at('packages/server/dist/precompiled/validators.json'),
      at('packages/server/dist/precompiled/routes.json'),
    ],
    run: () => {
      execFileSync(at('node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json'], { stdio: 'inherit', cwd: at('packages/server') });
      // Request validators, response serializers and glue's routes computed once here instead of at every start.
      execFileSync(process.execPath, ['dist/build/precompile.js'], { stdio: 'inherit', cwd: at('packages/server') });
      // The entry points as single-file bundles (module loading was most of the start-up CPU).
      execFileSync(process.execPath, ['dist/build/bundle.js'], { stdio: 'inherit', cwd: at('packages/server') });
    },
  },
];

const ifStale = process.argv.includes('--if-stale');
const stateFile = at('node_modules/.cache/transport-ops/build-state.json');
const state = readState(stateFile);
for (const step of steps) {
  if (ifStale && !isStale(step, state, root)) continue;
  const started = Date.now();
  // The digest of what this step is built from, taken before it runs (a step may rewrite its inputs' siblings).
  const inputs = digest(step.inputs, root);
  step.run();
  state[step.name] = inputs;
  writeState(stateFile, state);
  console.log(`built ${step.name} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
