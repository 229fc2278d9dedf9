#!/usr/bin/env node
// Runs the Arazzo journeys under openapi/workflows/ with `redocly respect` against the sandbox.
//   pnpm workflows                     build if stale, start the sandbox on a free port, run them all
//   pnpm workflows --base-url URL      against a running sandbox
//   pnpm workflows --only transport-lifecycle,auth-session
// Each file runs after a sandbox reset (the journeys start from the demo data), with the source
// description's server pointed at the sandbox (`-S transportOps=URL`); respect checks every
// response against the contract as well as the steps' success criteria. Reports (respect's JSON,
// `-J`) go to a temporary folder, or to --report-dir. Exits 1 when a journey fails.
//
// Binary answers (a PDF download): respect validates their bytes against the contract's
// `type: string, format: binary` schema as if they were JSON, and fails them. Its schema checks are
// therefore run as warnings (so that a journey goes on past a download) and judged here instead:
// every failed schema check fails the journey, unless the answer is binary and its bytes are what
// its Content-Type says (the signature of a PDF, PNG or JPEG; some bytes for another type).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { resetSandbox, startSandbox } from './lib/sandbox.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: { 'base-url': { type: 'string' }, only: { type: 'string' }, 'report-dir': { type: 'string' } },
});
const dir = join(root, 'openapi/workflows');
let files = readdirSync(dir).filter((f) => f.endsWith('.arazzo.yaml'));
if (args.only) {
  const wanted = args.only.split(',').map((n) => n.replace(/\.arazzo\.yaml$/, ''));
  files = files.filter((f) => wanted.includes(f.replace(/\.arazzo\.yaml$/, '')));
  if (files.length !== wanted.length) throw new Error(`--only names a workflow file that does not exist: ${args.only}`);
}
const reports = args['report-dir'] ?? mkdtempSync(join(tmpdir(), 'workflows-'));
mkdirSync(reports, { recursive: true });

const base = args['base-url']?.replace(/\/$/, '') ?? (await startSandbox(root));
console.log(`journeys against ${base}`);
/** Leading bytes of the binary media types the contract answers with. */
const SIGNATURES = {
  'application/pdf': Buffer.from('%PDF-'),
  'image/png': Buffer.from([0x89, 0x50, 0x4e, 0x47]),
  'image/jpeg': Buffer.from([0xff, 0xd8, 0xff]),
};
/** Why a step's failed schema check stands (null: a binary answer whose bytes match its media type). */
function schemaFailure(step) {
  const body = step.response?.body;
  if (body?.__type !== 'ArrayBuffer' || typeof body.data !== 'string') return 'a JSON answer that does not match its schema';
  const bytes = Buffer.from(body.data, 'base64');
  const type = String(step.response.headers?.['content-type'] ?? '')
    .split(';')[0]
    .trim();
  const signature = SIGNATURES[type];
  if (bytes.length === 0) return `an empty ${type} answer`;
  if (signature && !bytes.subarray(0, signature.length).equals(signature)) return `a ${type} answer whose bytes are not ${type}`;
  return null;
}

const results = [];
for (const file of files) {
  await resetSandbox(base);
  const report = join(reports, file.replace(/\.arazzo\.yaml$/, '.json'));
  const started = Date.now();
  const run = spawnSync(
    join(root, 'node_modules/.bin/redocly'),
    [
      'respect',
      join(dir, file),
      '-S',
      `transportOps=${base}`,
      '-J',
      report,
      '--max-fetch-timeout',
      '60000',
      '--severity',
      '{"SCHEMA_CHECK":"warn"}',
    ],
    { cwd: root, encoding: 'utf8', env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
  );
  const output = `${run.stdout}${run.stderr}`.replace(/^\s*[║╔╚].*\n/gm, '');
  let steps = '';
  const schemaFailures = [];
  let read = false;
  try {
    const json = JSON.parse(readFileSync(report, 'utf8'));
    const all = Object.values(json.files ?? {})
      .flatMap((f) => f.executedWorkflows ?? [])
      .flatMap((w) => w.executedSteps ?? []);
    const passed = (s) => (s.checks ?? []).every((c) => c.passed || (c.name === 'schema check' && schemaFailure(s) === null));
    for (const s of all) {
      if ((s.checks ?? []).some((c) => c.name === 'schema check' && !c.passed)) {
        const why = schemaFailure(s);
        if (why !== null) schemaFailures.push(`${s.workflowId}.${s.stepId}: schema check failed on ${why}`);
      }
    }
    steps = `${all.filter(passed).length}/${all.length} steps`;
    read = true;
  } catch {}
  const ok = run.status === 0 && read && schemaFailures.length === 0;
  results.push({ file, ok, steps, ms: Date.now() - started });
  if (!ok) console.log([output, ...schemaFailures].join('\n'));
}
console.log('\njourney                                   result  steps        time');
for (const r of results)
  console.log(`${r.file.padEnd(41)} ${(r.ok ? 'ok' : 'FAIL').padEnd(7)} ${r.steps.padEnd(12)} ${(r.ms / 1000).toFixed(1)} s`);
console.log(`reports (respect JSON): ${reports}`);
// Exit explicitly: the sandbox child keeps the event loop alive, and the exit handler stops it.
process.exit(results.every((r) => r.ok) ? 0 : 1);
