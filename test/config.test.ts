import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('loadConfig', () => {
  it('applies defaults when nothing is set', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      PORT: 3000,
      HOST: '127.0.0.1',
      PGLITE_DATA_DIR: './data/pglite',
      LOG_LEVEL: 'info',
      DB_POOL_MAX: 10,
      MIGRATE_ON_START: true,
      BASE_URL: 'http://127.0.0.1:3000',
      STAGING_URL: 'http://127.0.0.1:3000',
    });
    expect(config.DATABASE_URL).toBeUndefined();
  });

  it('converts and keeps valid values', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgres://api@db:5432/campaigns',
      MIGRATE_ON_START: 'false',
      DB_STATEMENT_TIMEOUT_MS: '2500',
      STAGING_URL: 'https://staging.example.com',
    });
    expect(config).toMatchObject({
      PORT: 8080,
      DATABASE_URL: 'postgres://api@db:5432/campaigns',
      MIGRATE_ON_START: false,
      DB_STATEMENT_TIMEOUT_MS: 2500,
      BASE_URL: 'http://localhost:8080',
      STAGING_URL: 'https://staging.example.com',
    });
  });

  it('treats empty strings as unset', () => {
    const config = loadConfig({ PORT: '', DATABASE_URL: '' });
    expect(config.PORT).toBe(3000);
    expect(config.DATABASE_URL).toBeUndefined();
  });

  it('lists every problem at once', () => {
    let caught: unknown;
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', LOG_LEVEL: 'loud', DB_POOL_MAX: '0' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const problems = (caught as ConfigError).problems.join('\n');
    for (const name of ['PORT', 'DATABASE_URL', 'LOG_LEVEL', 'DB_POOL_MAX']) expect(problems).toContain(name);
    expect((caught as ConfigError).message).toContain('"eighty"');
  });
});
