import { pino } from 'pino';
import { type App, type AppDependencies, buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import type { DatabaseHandle } from '../../src/db/client.js';

/** The configuration tests run with: defaults, quiet logs, overridable per test. */
export function testConfig(overrides: Record<string, string> = {}): Config {
  // The response cache would hide what a test just wrote; a test that is about the cache turns it on.
  return loadConfig({ LOG_LEVEL: 'silent', PGLITE_DATA_DIR: 'memory://', RESPONSE_CACHE_TTL_MS: '0', ...overrides });
}

export async function buildTestApp(
  database: DatabaseHandle,
  overrides: Record<string, string> = {},
  /** Adds test-only routes before the app is sealed. */
  extend: (app: App) => void = () => undefined,
  /** Replaces the quiet logger, the system clock, the start-up status, the claim volumes or the entry cache. */
  dependencies: Partial<Pick<AppDependencies, 'logger' | 'clock' | 'startup' | 'claimWindows' | 'entryCache'>> = {},
): Promise<App> {
  const config = testConfig(overrides);
  const app = await buildApp(config, { database, logger: pino({ level: config.LOG_LEVEL }), ...dependencies });
  extend(app);
  await app.ready();
  return app;
}
