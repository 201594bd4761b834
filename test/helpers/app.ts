import { pino } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { type App, type AppDependencies, buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import type { DatabaseHandle } from '../../src/db/client.js';
import { createTestDatabase, type TestDatabase } from './database.js';

/** The configuration tests run with: defaults, quiet logs, overridable per test. */
export function testConfig(overrides: Record<string, string> = {}): Config {
  // The response cache would hide what a test just wrote; a test that is about the cache turns it on.
  // A claim load's worker thread would compile the TypeScript sources afresh for every app (about a
  // second each): the worker has tests of its own, and the black-box tests run the built server with it.
  return loadConfig({
    LOG_LEVEL: 'silent',
    PGLITE_DATA_DIR: 'memory://',
    RESPONSE_CACHE_TTL_MS: '0',
    CLAIM_LOAD_IN_WORKER: 'false',
    // Background reads of the indexed blocks and the event log would add queries to tests that count
    // them; a test about either sets its own interval (they read once at start regardless).
    INDEXED_BLOCKS_POLL_MS: '3600000',
    EVENTS_POLL_MS: '3600000',
    EVENTS_TRENDING_MS: '3600000',
    ...overrides,
  });
}

export async function buildTestApp(
  database: DatabaseHandle,
  overrides: Record<string, string> = {},
  /** Adds test-only routes before the app is sealed. */
  extend: (app: App) => void = () => undefined,
  /** Replaces the quiet logger, the system clock, the start-up status, the claim volumes, the entry cache or the profile cache. */
  dependencies: Partial<Pick<AppDependencies, 'logger' | 'clock' | 'startup' | 'claimWindows' | 'entryCache' | 'profileCache' | 'eventFeed'>> = {},
): Promise<App> {
  const config = testConfig(overrides);
  const app = await buildApp(config, { database, logger: pino({ level: config.LOG_LEVEL }), ...dependencies });
  extend(app);
  await app.ready();
  return app;
}

/** The database and the app that `useTestApp()` makes for the tests of one block. */
export interface TestAppSetup {
  readonly database: TestDatabase;
  readonly app: App;
}

/**
 * A test database and an app on it (`buildTestApp(database, overrides)`) for the tests of the
 * enclosing `describe` block: made before its first test, closed after its last. Read `app` and
 * `database` inside the tests; they do not exist before.
 */
export function useTestApp(overrides: Record<string, string> = {}): TestAppSetup {
  let made: { database: TestDatabase; app?: App } | undefined;
  beforeAll(async () => {
    made = { database: await createTestDatabase() };
    made.app = await buildTestApp(made.database, overrides);
  });
  afterAll(async () => {
    await made?.app?.close();
    await made?.database.close();
  });
  return {
    get database() {
      if (!made) throw new Error('useTestApp(): the database exists once the block\'s tests run');
      return made.database;
    },
    get app() {
      if (!made?.app) throw new Error('useTestApp(): the app exists once the block\'s tests run');
      return made.app;
    },
  };
}
