import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * On the embedded database (no TEST_DATABASE_URL, a newcomer's `npm test`) the files' own work is
 * the whole load, so two things change there:
 * - Vitest runs `cores - 1` files at a time by default, one at a time on two cores; each file's
 *   PGlite runs inside its own worker, so two at a time keep both cores busy. Against a PostgreSQL
 *   server the server's backends need the core the default leaves free.
 * - A worker keeps the modules it loaded from one file to the next (`isolate: false`): loading the
 *   service's modules again for every file was a large share of the run. Each file still gets its
 *   own database and app; no test mocks modules or changes the environment, so nothing else is
 *   shared. The PostgreSQL runs keep each file isolated, so a test that leaned on state another
 *   file left would fail there.
 */
const embeddedDatabase = !process.env.TEST_DATABASE_URL;

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The build first: black-box tests start dist/server.js.
    globalSetup: ['test/global-build.ts', 'test/global-setup.ts'],
    // Each file gets its own database; files run in parallel worker processes.
    pool: 'forks',
    ...(embeddedDatabase ? { maxWorkers: Math.max(2, availableParallelism() - 1), isolate: false } : {}),
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
