import { build } from 'esbuild';
import { glueParserSwap } from '../patches/glue-parser.js';

/**
 * Build step (after tsc and precompile): the entry points users start (`dist/server.js`,
 * `dist/db/cli.js`, `dist/sandbox.js`) become single-file bundles written over tsc's modules.
 * Loading ~600 ES modules (resolving, reading, compiling each) was about 1 s of CPU at every
 * start; one file is a fraction of that.
 * Left outside the bundle: packages that read files beside their own modules (PGlite's WebAssembly
 * and extension archives, pdfkit's font metrics), native addons (argon2), and pg's optional
 * native binding (never installed), OpenTelemetry (loaded only when tracing is on), and the list of common passwords (2 MB of data read only when
 * a password is set: inside the bundle it would be parsed at every start).
 */
const external = [
  '@electric-sql/pglite',
  '@electric-sql/pglite/*',
  '@node-rs/argon2',
  'pdfkit',
  'pg-native',
  '@zxcvbn-ts/language-common',
  // OpenTelemetry is imported on demand (src/tracing.ts), only when OTEL_* variables turn tracing on.
  '@opentelemetry/*',
  '@fastify/otel',
];

const entries = ['server', 'db/cli', 'sandbox'];

/** Glue's parser module gives way to patches/glue-parser.ts: the routes parsed at build time. */
const glueParser = glueParserSwap('dist/patches/glue-parser.js');

await build({
  entryPoints: Object.fromEntries(entries.map((name) => [name, `dist/${name}.js`])),
  outdir: 'dist',
  allowOverwrite: true,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  external,
  plugins: [glueParser.plugin],
  // CommonJS packages inside an ES module bundle still call `require` for Node's built-ins.
  banner: { js: "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);" },
  sourcemap: 'linked',
  sourcesContent: false,
  legalComments: 'none',
  logLevel: 'warning',
});
glueParser.check();
console.log(`bundled ${entries.map((name) => `dist/${name}.js`).join(', ')}`);
