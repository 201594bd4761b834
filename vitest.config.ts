import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Vitest runs `cores - 1` files at a time by default: one at a time on two cores. On the embedded
 * database (no TEST_DATABASE_URL) each file's PGlite runs inside its own worker, so the files keep
 * every core busy by themselves: two at a time there at least. Against a PostgreSQL server the
 * server's backends need the core the default leaves free.
 */
const embeddedDatabase = !process.env.TEST_DATABASE_URL;

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The build first: black-box tests start dist/server.js.
    globalSetup: ['test/global-build.ts', 'test/global-setup.ts'],
    // Each file gets its own database; files run in parallel worker processes.
    pool: 'forks',
    ...(embeddedDatabase ? { maxWorkers: Math.max(2, availableParallelism() - 1) } : {}),
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
