// Starts the built sandbox (packages/server/dist/sandbox.js) on a free port for a script that runs
// against it, and stops it when that script exits. Builds first when the build is stale.
import { execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/** Returns the sandbox's base URL once it answers /health. */
export async function startSandbox(root, { timeoutMs = 180_000 } = {}) {
  execFileSync(process.execPath, [join(root, 'scripts/build.mjs'), '--if-stale'], { cwd: root, stdio: 'inherit' });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [join(root, 'packages/server/dist/sandbox.js'), '--port', String(port)], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const stop = () => {
    if (child.exitCode === null) child.kill('SIGTERM');
  };
  process.on('exit', stop);
  for (const signal of ['SIGINT', 'SIGTERM'])
    process.on(signal, () => {
      stop();
      process.exit(130);
    });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the sandbox exited (${child.exitCode})`);
    try {
      if ((await fetch(`${base}/health`)).ok) return base;
    } catch {}
    if (Date.now() > deadline) throw new Error(`the sandbox did not answer /health within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Puts the sandbox's demo data back (every session closed). */
export async function resetSandbox(base) {
  const res = await fetch(`${base}/sandbox/reset`, { method: 'POST' });
  if (!res.ok) throw new Error(`POST /sandbox/reset answered ${res.status}: is ${base} a sandbox?`);
}
