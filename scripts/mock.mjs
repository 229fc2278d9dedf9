#!/usr/bin/env node
// `pnpm mock [--port 4010] [--host 127.0.0.1] [other Prism options]`: the Prism mock of the bundled
// contract. For contract-only work: it answers the contract's examples and validates requests, but
// keeps no state (see openapi/README.md, "The mock", for its limits; `pnpm sandbox` is the stateful one).
//
// It survives `pnpm gen`: Prism serves a private copy of the last good bundle on an internal port,
// behind a small proxy on the public one. When packages/contract/dist/openapi.json changes (gen
// replaces it atomically), a second Prism starts on the new copy; once it answers, the proxy sends
// new requests to it and the old one stops. A bundle that does not parse is reported and ignored:
// the previous contract keeps answering, and no request is refused meanwhile. (The JSON bundle:
// it parses in milliseconds, where the YAML one held the proxy's event loop for seconds.)
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, renameSync, rmSync, watch, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bundle = join(root, 'packages/contract/dist/openapi.json');
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

const work = mkdtempSync(join(tmpdir(), 'transport-ops-mock-'));
let generation = 0;
/** The Prism answering now: `{ port, child, digest }`. */
let current = null;
let stopping = false;
/** Every Prism started and not yet stopped (one, or two during a switch). */
const children = new Set();

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });

/** Every local `$ref` of `document` that points at nothing (a truncated or hand-broken bundle). */
function danglingRefs(document) {
  const missing = [];
  const target = (ref) =>
    ref
      .slice(2)
      .split('/')
      .reduce((node, key) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], document);
  const visit = (node) => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node && typeof node === 'object') {
      if (typeof node.$ref === 'string' && node.$ref.startsWith('#/') && target(node.$ref) === undefined) missing.push(node.$ref);
      Object.values(node).forEach(visit);
    }
  };
  visit(document);
  return missing;
}

/** The bundle's text when it is a complete OpenAPI document, else undefined (a reason is logged). */
function readBundle() {
  try {
    const text = readFileSync(bundle, 'utf8');
    const document = JSON.parse(text);
    if (!document?.openapi || !document.paths) throw new Error('not an OpenAPI document');
    const missing = danglingRefs(document);
    if (missing.length) throw new Error(`${missing.length} $ref(s) point at nothing, e.g. ${missing[0]}`);
    return text;
  } catch (error) {
    console.error(`[mock] ${bundle} is not usable (${error.message}); still serving the previous contract`);
    return undefined;
  }
}

/** Starts Prism on a private copy of `text`; resolves once it answers HTTP. */
async function startPrism(text) {
  const file = join(work, `openapi-${++generation}.json`);
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
  const port = await freePort();
  const child = spawn(
    join(root, 'node_modules/.bin/prism'),
    ['mock', file, '--port', String(port), '--host', '127.0.0.1', ...passthrough],
    {
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  children.add(child);
  const exited = new Promise((resolve) => child.once('exit', resolve)).then(() => children.delete(child));
  // Prism starts in 2 s on an idle machine; a busy one can take minutes.
  for (const started = Date.now(); Date.now() - started < 600_000; ) {
    const up = await new Promise((resolve) => {
      const req = http.get({ host: '127.0.0.1', port, path: '/health', timeout: 1000 }, (res) => {
        res.resume();
        resolve(true);
      });
      req.on('error', () => resolve(false));
      req.on('timeout', () => req.destroy());
    });
    if (up) {
      const prism = { port, child, file, exited, digest: createHash('sha256').update(text).digest('hex') };
      // A Prism that dies while serving is replaced (the proxy answers 502 meanwhile).
      exited.then(() => {
        if (current !== prism || stopping) return;
        console.error('[mock] Prism stopped; starting it again');
        prism.digest = null;
        reload();
      });
      return prism;
    }
    if (child.exitCode !== null) break;
    await Promise.race([exited, new Promise((r) => setTimeout(r, 200))]);
  }
  child.kill('SIGTERM');
  rmSync(file, { force: true });
  throw new Error('Prism did not start');
}

function stopPrism(prism) {
  prism.child.kill('SIGTERM');
  prism.exited.then(() => rmSync(prism.file, { force: true }));
}

let swapping = Promise.resolve();
/** Serves the bundle as it is now, if it changed and is usable; the old Prism stops once the new one answers. */
function reload() {
  swapping = swapping.then(async () => {
    if (stopping) return;
    const text = readBundle();
    if (text === undefined || createHash('sha256').update(text).digest('hex') === current?.digest) return;
    try {
      const next = await startPrism(text);
      const previous = current;
      current = next;
      // Requests already sent to the previous one finish first.
      if (previous) setTimeout(() => stopPrism(previous), 5_000);
      console.log(`[mock] serving ${previous ? 'the changed' : 'the'} contract on http://${values.host}:${values.port}`);
    } catch (error) {
      console.error(`[mock] ${error.message}; still serving the previous contract`);
    }
  });
  return swapping;
}

const proxy = http.createServer((req, res) => {
  const target = current;
  const upstream = http.request(
    { host: '127.0.0.1', port: target.port, method: req.method, path: req.url, headers: req.headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on('error', (error) => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ success: false, message: `mock unavailable: ${error.message}`, result: null, errors: null }));
  });
  req.pipe(upstream);
});

const text = readBundle();
if (text === undefined) process.exit(1);
await reload();
if (!current) process.exit(1);
// Clients keep their connections while a switch is under way.
proxy.keepAliveTimeout = 30_000;
proxy.listen(Number(values.port), String(values.host));

let timer;
// The folder, not the file: gen replaces the file (a rename), which ends a watch on the file itself.
watch(dirname(bundle), (_event, name) => {
  if (name !== 'openapi.json') return;
  clearTimeout(timer);
  timer = setTimeout(reload, 300);
});

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    stopping = true;
    proxy.close();
    for (const child of children) child.kill(signal);
    setTimeout(() => {
      rmSync(work, { recursive: true, force: true });
      process.exit(0);
    }, 200);
  });
}
