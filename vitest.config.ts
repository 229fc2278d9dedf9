import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'server',
          root: 'packages/server',
          include: ['test/**/*.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
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
