#!/usr/bin/env node
// Checks the size of each of the SDK's entry points as a browser bundle would carry it (its
// dependencies included, peer dependencies left to the app) against its budget, and that the main
// entry carries none of the other entries' dependencies; fails above a budget. Run after `pnpm build`.
import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const kB = 1024;
/** What the main entry must never pull in: each other entry's own dependencies. */
const notInMain = ['standardwebhooks', '@stablelib', 'fast-sha256', 'openapi-react-query', '@tanstack', 'react'];
const ENTRIES = [
  // openapi-fetch and the operation table included.
  // 27 kB: the operation table (method, path, flags of every operation) grew by the eleven tracking,
  // delivery and audit operations (26.6 kB with them).
  { name: '@transport-ops/sdk', file: 'index.js', budget: { minified: 27 * kB, gzipped: 8.5 * kB }, forbidden: notInMain },
  // standardwebhooks (pure JavaScript HMAC-SHA256 and base64) included.
  {
    name: '@transport-ops/sdk/webhooks',
    file: 'webhooks.js',
    budget: { minified: 16 * kB, gzipped: 6 * kB },
    forbidden: ['openapi-fetch'],
  },
  // The live stream reader (fetch streaming, SSE parsing, reconnection) and the error classes.
  {
    name: '@transport-ops/sdk/live',
    file: 'live.js',
    budget: { minified: 4 * kB, gzipped: 2 * kB },
    forbidden: ['openapi-fetch', 'standardwebhooks'],
  },
  // Its peer dependencies are the app's (react, @tanstack/react-query, openapi-react-query); it takes the client as an argument.
  {
    name: '@transport-ops/sdk/react-query',
    file: 'react-query.js',
    budget: { minified: 1 * kB, gzipped: 1 * kB },
    external: ['react', '@tanstack/react-query', 'openapi-react-query'],
    forbidden: ['openapi-fetch'],
  },
];

const kb = (n) => `${(n / kB).toFixed(1)} kB`;
let failed = false;
for (const entry of ENTRIES) {
  const out = await build({
    entryPoints: [fileURLToPath(new URL(`../dist/${entry.file}`, import.meta.url))],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    external: entry.external ?? [],
    write: false,
    metafile: true,
  });
  const bytes = out.outputFiles[0].contents;
  const sizes = { minified: bytes.length, gzipped: gzipSync(bytes).length };
  const packages = Object.keys(out.metafile.inputs)
    .filter((input) => input.includes('node_modules/'))
    .map((input) => input.split('node_modules/').at(-1))
    .map((path) => (path.startsWith('@') ? path.split('/').slice(0, 2).join('/') : path.split('/')[0]));
  const carried = [...new Set(packages)];
  console.log(
    `${entry.name}: ${kb(sizes.minified)} minified, ${kb(sizes.gzipped)} gzipped (budget ${kb(entry.budget.minified)} / ${kb(entry.budget.gzipped)}); carries ${carried.join(', ') || 'no dependency'}`,
  );
  const over = Object.keys(entry.budget).filter((k) => sizes[k] > entry.budget[k]);
  if (over.length) {
    console.error(`  over budget (${over.join(', ')}): keep the entry small or raise its budget with a reason`);
    failed = true;
  }
  const leaked = carried.filter((p) => entry.forbidden.some((f) => p === f || p.startsWith(`${f}/`)));
  if (leaked.length) {
    console.error(`  carries ${leaked.join(', ')}, which belong(s) to another entry point`);
    failed = true;
  }
}
if (failed) process.exit(1);
