import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The build first: black-box tests start dist/server.js.
    globalSetup: ['test/global-build.ts', 'test/global-setup.ts'],
    // Each file gets its own database; files run in parallel worker processes.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
