import { defineConfig } from 'vitest/config';

// Timeouts are failure deadlines for something that hangs, never a measure of speed: a passing test
// takes the same time with any of them, and a machine busy with other work (CI beside benchmarks,
// several runs at once: the suite takes 3-4 times as long there) must not turn a slow pass into a
// failure. Hence generous values per project (vitest's defaults are 5 s per test and 10 s per hook);
// CI bounds each whole run besides. A wait inside a test (vi.waitFor, expect.poll, a receiver's
// until) stays below its test's timeout.
const server = {
  root: 'packages/server',
  globalSetup: ['test/support/global-setup.ts'],
  testTimeout: 120_000,
  hookTimeout: 300_000,
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
          // Bundles, diffs and type generation run redocly and openapi-typescript in processes.
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
      {
        test: {
          name: 'sdk',
          root: 'packages/sdk',
          include: ['test/**/*.test.ts'],
          globalSetup: ['test/prism-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
