import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Base address of the Prism mock serving the bundled contract. */
    mockUrl: string;
  }
}

const root = fileURLToPath(new URL('../../../', import.meta.url));

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** Starts the Prism mock on the bundled contract (as `pnpm mock` does) for the SDK tests. */
export default async function setup(project: TestProject) {
  const port = await freePort();
  const prism = spawn(
    `${root}node_modules/.bin/prism`,
    ['mock', 'packages/contract/dist/openapi.yaml', '--port', String(port), '--host', '127.0.0.1', '--errors'],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  prism.stdout.on('data', (d) => (output += d));
  prism.stderr.on('data', (d) => (output += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 240_000;
  for (;;) {
    if (prism.exitCode !== null) throw new Error(`prism exited: ${output}`);
    try {
      await fetch(`${url}/health`);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`prism did not start: ${output}`);
      await new Promise((r) => setTimeout(r, 300));
    }
  }
  project.provide('mockUrl', url);
  return () => {
    prism.kill('SIGTERM');
  };
}
