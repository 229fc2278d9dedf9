#!/usr/bin/env node
// Checks the size of the SDK's runtime as a browser bundle would carry it (openapi-fetch and the
// operation table included) against its budget; fails above it. Run after `pnpm build`.
import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const BUDGET = { minified: 26 * 1024, gzipped: 8 * 1024 };
const entry = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const out = await build({ entryPoints: [entry], bundle: true, minify: true, format: 'esm', platform: 'browser', write: false });
const bytes = out.outputFiles[0].contents;
const sizes = { minified: bytes.length, gzipped: gzipSync(bytes).length };
const kb = (n) => `${(n / 1024).toFixed(1)} kB`;
console.log(
  `@transport-ops/sdk runtime: ${kb(sizes.minified)} minified, ${kb(sizes.gzipped)} gzipped (budget ${kb(BUDGET.minified)} / ${kb(BUDGET.gzipped)})`,
);
const over = Object.keys(BUDGET).filter((k) => sizes[k] > BUDGET[k]);
if (over.length) {
  console.error(`over budget (${over.join(', ')}): keep the runtime small or raise the budget with a reason`);
  process.exit(1);
}
