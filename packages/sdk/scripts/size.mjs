#!/usr/bin/env node
// Prints the minified (and gzipped) size of the SDK's runtime as a browser bundle would carry it.
import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const entry = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const out = await build({ entryPoints: [entry], bundle: true, minify: true, format: 'esm', platform: 'browser', write: false });
const bytes = out.outputFiles[0].contents;
console.log(`@transport-ops/sdk runtime: ${(bytes.length / 1024).toFixed(1)} kB minified, ${(gzipSync(bytes).length / 1024).toFixed(1)} kB gzipped (openapi-fetch included)`);
