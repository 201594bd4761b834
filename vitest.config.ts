import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Each file gets its own database; files run in parallel worker processes.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
