import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'server',
          root: 'packages/server',
          include: ['test/**/*.test.ts'],
          exclude: ['test/ops/**'],
          globalSetup: ['test/support/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
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
