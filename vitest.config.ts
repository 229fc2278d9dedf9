import { defineConfig } from 'vitest/config';

const server = {
  root: 'packages/server',
  globalSetup: ['test/support/global-setup.ts'],
  testTimeout: 30_000,
  hookTimeout: 60_000,
};
const isolatedServerTests = ['test/modules/tutorials/certificate-code.test.ts'];

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
          include: isolatedServerTests,
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
