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

// Test files run in three workers. Vitest's default is one fewer than the cores, which is a single
// worker on the 2-core machines this project is built and checked on: the suite then runs its files
// one after the other while most of them wait (on PostgreSQL, on child processes, on timers) with a
// core idle. Each file has its own database copy and app state (test/support/app.ts), so files do not
// share anything a second worker could disturb. VITEST_MAX_WORKERS overrides it (1 for a serial run).
const maxWorkers = 3;

export default defineConfig({
  test: {
    maxWorkers,
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
