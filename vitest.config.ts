import { defineConfig } from 'vitest/config';

const server = {
  root: 'packages/server',
  globalSetup: ['test/support/global-setup.ts'],
  testTimeout: 30_000,
  hookTimeout: 60_000,
};
const isolatedServerTests = ['test/modules/tutorials/certificate-code.test.ts', 'test/ops/**'];

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          ...server,
          name: 'server',
          include: ['test/**/*.test.ts'],
          exclude: isolatedServerTests,
          // Files of a worker share its modules, hence one app per worker (see test/support/app.ts).
          isolate: false,
        },
      },
      {
        test: {
          ...server,
          // Files that replace a module with vi.mock need modules of their own.
          name: 'server-isolated',
          include: ['test/modules/tutorials/certificate-code.test.ts'],
        },
      },
      {
        // Failure modes on real processes (a private PostgreSQL cluster, a private Redis, the
        // built server): run once, whatever the database of the run.
        test: {
          name: 'ops',
          root: 'packages/server',
          include: ['test/ops/**/*.test.ts'],
          testTimeout: 240_000,
          hookTimeout: 300_000,
        },
      },
      {
        test: {
          name: 'contract',
          root: '.',
          include: ['openapi/test/**/*.test.ts'],
        },
      },
      {
        test: {
          name: 'sdk',
          root: 'packages/sdk',
          include: ['test/**/*.test.ts'],
          globalSetup: ['test/prism-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
