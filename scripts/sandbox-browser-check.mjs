#!/usr/bin/env node
// The frontend flow, as a browser runs it: a page on a local origin loads the SDK (bundled for the
// browser) and, through CORS, logs in to the sandbox, lists, uploads, gets a typed error, resets the
// sandbox and logs out. Run in headless Chromium; fails unless every step passed.
// Usage: SANDBOX_URL=http://127.0.0.1:4000 node scripts/sandbox-browser-check.mjs
//        (without SANDBOX_URL it starts `pnpm sandbox` on a free port and stops it afterwards)
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// esbuild comes with the SDK's development dependencies (it also measures the SDK's size).
const { build } = await import(createRequire(join(root, 'packages/sdk/package.json')).resolve('esbuild'));
const listen = (server) => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
const freePort = async () => {
  const s = createServer();
  const port = await listen(s);
  await new Promise((r) => s.close(r));
  return port;
};

let sandbox = null;
let api = process.env.SANDBOX_URL;
if (!api) {
  const port = await freePort();
  sandbox = spawn('pnpm', ['sandbox', '--port', String(port)], {
    cwd: root,
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, LOG_LEVEL: 'warn' },
  });
  api = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i += 1) {
    if (
      await fetch(`${api}/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (i > 480 || sandbox.exitCode !== null) throw new Error('the sandbox did not start');
    await new Promise((r) => setTimeout(r, 500));
  }
}

const sdk = await build({
  entryPoints: [join(root, 'packages/sdk/src/index.ts')],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  write: false,
});
const page = `<!doctype html><meta charset="utf-8"><title>SDK in a browser</title><pre id="out">running</pre>
<script type="module">
import { createTransportOpsClient, ApiError } from '/sdk.js';
const steps = [];
const out = document.getElementById('out');
try {
  const api = createTransportOpsClient({ baseUrl: ${JSON.stringify(api)} });
  const login = await api.login('agent', 'demo1234');
  steps.push('login ' + login.user.username);
  const list = await api.op.listTransports({ limit: 5 });
  steps.push('list ' + list.meta.total);
  const pdf = new File(['%PDF-1.4\\n1 0 obj<<>>endobj\\ntrailer<<>>\\n%%EOF\\n'], 'licence.pdf', { type: 'application/pdf' });
  const upload = await api.op.uploadTransportDocuments({ files: [pdf], transportId: list.data[0].id, documentType: 'INSURANCE' });
  steps.push('upload ' + upload.uploaded.length);
  const missing = await api.op.getTransportById({ id: 999999 }).catch((e) => e);
  steps.push('error ' + (missing instanceof ApiError ? missing.code + ' ' + (missing.requestId ? 'with request id' : 'without request id') : String(missing)));
  const reset = await api.op.resetSandbox();
  steps.push('reset ' + (reset.durationMs < 2000 ? 'under 2 s' : reset.durationMs + ' ms'));
  await api.login('agent', 'demo1234');
  await api.logout();
  steps.push('logout');
  out.textContent = 'PASS ' + steps.join('; ');
} catch (e) {
  out.textContent = 'FAIL after [' + steps.join('; ') + ']: ' + (e && e.name) + ' ' + (e && e.message);
}
</script>`;
const site = createServer((req, res) => {
  if (req.url === '/sdk.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(sdk.outputFiles[0].contents);
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
});
const sitePort = await listen(site);
const profile = mkdtempSync(join(tmpdir(), 'browser-check-'));
let dom = '';
try {
  dom = await new Promise((resolve, reject) =>
    execFile(
      process.env.CHROMIUM ?? 'chromium',
      [
        '--headless=new',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        `--user-data-dir=${profile}`,
        '--virtual-time-budget=60000',
        '--dump-dom',
        `http://localhost:${sitePort}/`,
      ],
      { timeout: 180_000, cwd: profile },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)),
    ),
  );
} finally {
  site.close();
  rmSync(profile, { recursive: true, force: true });
  if (sandbox) process.kill(-sandbox.pid, 'SIGTERM');
}
const result = /<pre id="out">([^<]*)<\/pre>/.exec(dom)?.[1] ?? dom.slice(0, 500);
console.log(`browser on http://localhost:${sitePort} against ${api}: ${result}`);
if (!result.startsWith('PASS')) process.exit(1);
