#!/usr/bin/env node
// Runs the code samples of the docs page against the sandbox, as a reader would.
//   pnpm docs:samples                      build if stale, start the sandbox on a free port, run every sample
//   pnpm docs:samples --base-url URL       use a running sandbox instead
//   pnpm docs:samples --only login,getTransportById   a few operations
//   pnpm docs:samples --skip-sdk | --skip-curl
//
// curl: every sample of packages/contract/dist/openapi.docs.json (written for the sandbox's default
// address, which is replaced by the one in use) runs with bash in an empty directory, after a
// sandbox reset (skipped after samples that only read), with ACCESS_TOKEN of the demo account its first line names. Every curl call of the
// sample, its setup lines included, must answer 2xx.
// SDK: every sample becomes a function of one generated TypeScript module that tsc checks against
// the SDK's sources (strict), then each one runs after a reset; a sample passes when its call
// resolves (the SDK throws on any answer that is not 2xx).
// Prints a table and exits 1 when any sample fails.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { SAMPLE_BASE } from './gen/docs.mjs';
import { resetSandbox, startSandbox } from './lib/sandbox.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    'base-url': { type: 'string' },
    only: { type: 'string' },
    'skip-sdk': { type: 'boolean', default: false },
    'skip-curl': { type: 'boolean', default: false },
  },
});
const only = args.only ? new Set(args.only.split(',')) : null;

execFileSync(process.execPath, [join(root, 'scripts/gen.mjs'), '--if-stale'], { cwd: root, stdio: 'inherit' });
const document = JSON.parse(readFileSync(join(root, 'packages/contract/dist/openapi.docs.json'), 'utf8'));
const operations = [];
for (const [path, item] of Object.entries(document.paths)) {
  for (const method of ['get', 'put', 'post', 'patch', 'delete']) {
    const op = item[method];
    if (!op || (only && !only.has(op.operationId))) continue;
    const sample = (lang) => op['x-codeSamples'].find((s) => s.lang === lang)?.source;
    operations.push({ id: op.operationId, method: method.toUpperCase(), path, curl: sample('curl'), sdk: sample('JavaScript') });
  }
}
if (only && operations.length !== only.size) {
  console.error(`unknown operationId in --only: ${[...only].filter((id) => !operations.some((o) => o.id === id)).join(', ')}`);
  process.exit(2);
}

const base = args['base-url']?.replace(/\/$/, '') ?? (await startSandbox(root));
console.log(`samples against ${base} (written for ${SAMPLE_BASE})`);

// A reset before each sample, skipped while the samples since the last one only read (GET): every
// sample sees the demo data as the sandbox starts. Tokens are kept until the next reset closes them.
let clean = false;
const tokens = new Map();
async function reset(readOnly) {
  if (!clean) {
    await resetSandbox(base);
    tokens.clear();
  }
  clean = readOnly;
}
async function login(username) {
  if (!tokens.has(username)) tokens.set(username, await signIn(username));
  return tokens.get(username);
}
async function signIn(username) {
  const res = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password: 'demo1234' }),
  });
  const body = await res.json();
  if (!res.ok) throw new Error(`login as ${username}: ${res.status} ${JSON.stringify(body.errors)}`);
  return body.result.access_token;
}

/** bash with every curl call reporting its status on a file descriptor the sample does not use. */
function runBash(script, env, cwd) {
  const wrapper = `curl() { command curl -sS -w '%{stderr}__STATUS__ %{http_code}\\n' "$@"; }\nset -euo pipefail\n${script}\n`;
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', wrapper], { cwd, env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      const statuses = [...err.matchAll(/__STATUS__ (\d{3})/g)].map((m) => Number(m[1]));
      resolve({ code, out, err: err.replace(/__STATUS__ \d{3}\n?/g, ''), statuses });
    });
  });
}

const results = [];
const work = mkdtempSync(join(tmpdir(), 'docs-samples-'));
try {
  if (!args['skip-curl']) {
    for (const op of operations) {
      const user = op.curl.match(/^# As (\S+) \(/m)?.[1] ?? null;
      if (!user && !/^# Public/m.test(op.curl)) {
        results.push({ kind: 'curl', op, user: '?', statuses: [], ok: false, note: 'the sample does not say which account it needs' });
        continue;
      }
      await reset(!/-X (POST|PUT|PATCH|DELETE)/.test(op.curl));
      let token = '';
      try {
        token = user ? await login(user) : '';
      } catch (error) {
        results.push({ kind: 'curl', op, user, statuses: [], ok: false, note: String(error.message) });
        continue;
      }
      const dir = join(work, `curl-${op.id}`);
      mkdirSync(dir);
      const script = op.curl.replaceAll(SAMPLE_BASE, base);
      const r = await runBash(script, { ACCESS_TOKEN: token }, dir);
      const ok = r.code === 0 && r.statuses.length > 0 && r.statuses.every((s) => s >= 200 && s < 300);
      results.push({
        kind: 'curl',
        op,
        user: user ?? 'public',
        statuses: r.statuses,
        ok,
        note: ok ? '' : `${r.err.trim()} ${r.out.trim()}`.trim().slice(0, 600) || `bash exited ${r.code}`,
      });
    }
  }

  if (!args['skip-sdk']) {
    // One module, one exported function per sample; imports are hoisted to the top.
    const sdkDir = join(root, 'packages/sdk/.samples');
    rmSync(sdkDir, { recursive: true, force: true });
    mkdirSync(sdkDir, { recursive: true });
    // Imports of the SDK's other entry points (`@transport-ops/sdk/live`) come from its sources too.
    const entryImports = new Set();
    const bodies = operations.map((op) => {
      for (const line of op.sdk.split('\n'))
        if (line.startsWith('import ') && line.includes("'@transport-ops/sdk/"))
          entryImports.add(line.replace(/'@transport-ops\/sdk\/([\w-]+)'/, "'../src/$1.js'"));
      const lines = op.sdk.split('\n').filter((l) => !l.startsWith('import '));
      const code = lines
        .join('\n')
        .replaceAll(`baseUrl: '${SAMPLE_BASE}'`, 'baseUrl')
        .replace(/^const (result|file) = /m, 'return ');
      return `export async function ${op.id}(baseUrl: string) {\n${code.replace(/^/gm, '  ')}\n}\n`;
    });
    const source = `// Generated by scripts/docs-samples.mjs from the docs' SDK samples.\nimport { createTransportOpsClient } from '../src/index.js';\n${[...entryImports].join('\n')}\n\n${bodies.join('\n')}`;
    writeFileSync(join(sdkDir, 'samples.ts'), source);
    writeFileSync(
      join(sdkDir, 'tsconfig.json'),
      JSON.stringify({
        extends: '../tsconfig.json',
        compilerOptions: { noEmit: true, noUnusedLocals: true },
        include: ['samples.ts', '../src'],
      }),
    );
    const tsc = join(root, 'node_modules/.bin/tsc');
    const started = Date.now();
    let typeErrors = '';
    try {
      execFileSync(tsc, ['-p', join(sdkDir, 'tsconfig.json')], { cwd: root, stdio: 'pipe' });
    } catch (error) {
      typeErrors = String(error.stdout ?? error);
    }
    console.log(`SDK samples type-checked in ${Date.now() - started} ms: ${typeErrors ? 'errors' : 'no error'}`);
    const failedTypes = new Map();
    for (const line of typeErrors.split('\n')) {
      const m = line.match(/samples\.ts\((\d+),/);
      if (!m) continue;
      const before = source.split('\n').slice(0, Number(m[1])).reverse();
      const fn = before.find((l) => l.startsWith('export async function '))?.match(/function (\w+)/)?.[1] ?? '?';
      failedTypes.set(fn, `${failedTypes.get(fn) ?? ''}${line.trim()} `);
    }
    if (typeErrors && failedTypes.size === 0) console.error(typeErrors);

    // Run them: tsx compiles the module (the SDK from its sources), each sample after a reset.
    const { register } = await import('tsx/esm/api');
    const unregister = register();
    const module = await import(pathToFileURL(join(sdkDir, 'samples.ts')).href);
    for (const op of operations) {
      const user = op.sdk.match(/api\.login\('(\w+)'/)?.[1] ?? 'public';
      if (failedTypes.has(op.id)) {
        results.push({ kind: 'sdk', op, user, statuses: [], ok: false, note: `tsc: ${failedTypes.get(op.id).slice(0, 600)}` });
        continue;
      }
      await reset(op.method === 'GET' && (op.sdk.match(/\.op\.\w+\(/g) ?? []).length === 1);
      try {
        const value = await module[op.id](base);
        results.push({ kind: 'sdk', op, user, statuses: [], ok: true, note: value instanceof Blob ? `Blob ${value.size} bytes` : '' });
      } catch (error) {
        const detail = error?.status ? `${error.status} ${error.message} ${JSON.stringify(error.body?.errors ?? '')}` : String(error);
        results.push({ kind: 'sdk', op, user, statuses: [], ok: false, note: detail.slice(0, 600) });
      }
    }
    await unregister();
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const pad = (s, n) => String(s).padEnd(n);
console.log(`\n${pad('sample', 5)} ${pad('operation', 34)} ${pad('request', 58)} ${pad('as', 10)} ${pad('status', 12)} result`);
for (const r of results) {
  console.log(
    `${pad(r.kind, 5)} ${pad(r.op.id, 34)} ${pad(`${r.op.method} ${r.op.path}`, 58)} ${pad(r.user, 10)} ${pad(r.statuses.join(',') || '-', 12)} ${r.ok ? 'ok' : `FAIL ${r.note}`}`,
  );
}
const failed = results.filter((r) => !r.ok);
for (const kind of ['curl', 'sdk']) {
  const all = results.filter((r) => r.kind === kind);
  if (all.length) console.log(`${kind}: ${all.length - all.filter((r) => !r.ok).length} of ${all.length} samples answered 2xx`);
}
// Exit explicitly: the sandbox child keeps the event loop alive, and the exit handler stops it.
process.exit(failed.length ? 1 : 0);
