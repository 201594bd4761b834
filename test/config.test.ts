import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { loadSignerKeys } from '../src/chain/claim-signers.js';
import { checkSignerKeys } from '../src/chain/signer-keys.js';
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

  it('says what a variable allows: the values of a choice, the range of a number, a URL scheme, true or false', () => {
    const problemsOf = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (error) {
        return (error as ConfigError).problems;
      }
      throw new Error('no configuration error');
    };
    expect(problemsOf({ LOG_LEVEL: 'verbose' })).toEqual(['LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent (got "verbose")']);
    expect(problemsOf({ LOG_FORMAT: 'yaml', DB_POOL_MODE: 'statement' })).toEqual([
      'LOG_FORMAT: must be one of json, pretty (got "yaml")',
      'DB_POOL_MODE: must be one of session, transaction (got "statement")',
    ]);
    expect(problemsOf({ PORT: 'eighty' })).toEqual(['PORT: must be a whole number from 0 to 65535 (got "eighty")']);
    expect(problemsOf({ PORT: '70000' })).toEqual(['PORT: must be a whole number from 0 to 65535 (got "70000")']);
    // Not silently truncated to 2.
    expect(problemsOf({ DB_POOL_MAX: '2.5' })).toEqual(['DB_POOL_MAX: must be a whole number from 1 to 1000 (got "2.5")']);
    expect(problemsOf({ OVERLOAD_MAX_EVENT_LOOP_UTILIZATION: '1.5' })).toEqual([
      'OVERLOAD_MAX_EVENT_LOOP_UTILIZATION: must be a number from 0 to 1 (got "1.5")',
    ]);
    expect(problemsOf({ DEMO_DATA: 'maybe' })).toEqual(['DEMO_DATA: must be true or false (got "maybe")']);
    expect(problemsOf({ DATABASE_URL: 'mysql://x' })).toEqual(['DATABASE_URL: must be a postgres:// or postgresql:// URL (got "mysql://x")']);
    expect(problemsOf({ BASE_URL: 'example.com' })).toEqual(['BASE_URL: must be an http:// or https:// URL (got "example.com")']);
    expect(loadConfig({ PORT: ' 8080 ', DB_POOL_MAX: '+4' })).toMatchObject({ PORT: 8080, DB_POOL_MAX: 4 });
  });

  it('defaults the operations settings: CORS unset (the default policy), no trusted proxy, 600 requests a minute, max-age 10, metrics on', () => {
    expect(loadConfig({}).CORS_ORIGINS).toBeUndefined();
    expect(loadConfig({ CORS_ORIGINS: ' , ' }).CORS_ORIGINS).toBeUndefined();
    expect(loadConfig({})).toMatchObject({
      TRUST_PROXY: [],
      RATE_LIMIT_MAX: 600,
      RATE_LIMIT_WINDOW_MS: 60_000,
      CACHE_MAX_AGE_S: 10,
      METRICS_ENABLED: true,
    });
  });

  it('splits CORS_ORIGINS and TRUST_PROXY into trimmed lists', () => {
    const config = loadConfig({
      CORS_ORIGINS: ' https://app.example.com, http://localhost:5173 ',
      TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1, fd00::/8,loopback',
    });
    expect(config.CORS_ORIGINS).toEqual(['https://app.example.com', 'http://localhost:5173']);
    expect(config.TRUST_PROXY).toEqual(['10.0.0.0/8', '127.0.0.1', '::1', 'fd00::/8', 'loopback']);
    expect(loadConfig({ CORS_ORIGINS: '*' }).CORS_ORIGINS).toEqual(['*']);
    expect(loadConfig({ CORS_ORIGINS: 'none' }).CORS_ORIGINS).toEqual([]);
  });

  it.each(['true', 'TRUE', '10.0.0.1,true'])('rejects TRUST_PROXY=%s: it would trust every client', (value) => {
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(/TRUST_PROXY: true would trust every client/);
  });

  it.each(['10.0.0.0/33', '::/129', 'proxy.internal', '10.0.0.0/8/1', '1', '*'])('rejects TRUST_PROXY=%s', (value) => {
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(/TRUST_PROXY: ".*" is not an IP address, a CIDR/);
  });

  it.each(['https://app.example.com/', 'app.example.com', 'https://app.example.com/path', '*,https://a.example.com', 'none,https://a.example.com'])(
    'rejects CORS_ORIGINS=%s',
    (value) => {
      expect(() => loadConfig({ CORS_ORIGINS: value })).toThrow(/CORS_ORIGINS/);
    },
  );

  it('defaults the database fault settings, the query timeout a second above the statement timeout', () => {
    expect(loadConfig({})).toMatchObject({
      DB_POOL_MAX: 10,
      DB_CONNECT_TIMEOUT_MS: 2000,
      DB_POOL_ACQUIRE_TIMEOUT_MS: 2000,
      DB_STATEMENT_TIMEOUT_MS: 5000,
      DB_QUERY_TIMEOUT_MS: 6000,
      DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: 10_000,
      DB_APPLICATION_NAME: 'campaign-service',
      OVERLOAD_MAX_EVENT_LOOP_UTILIZATION: 0,
    });
    expect(loadConfig({}).MIGRATE_DATABASE_URL).toBeUndefined();
    expect(loadConfig({ DB_STATEMENT_TIMEOUT_MS: '200' }).DB_QUERY_TIMEOUT_MS).toBe(1200);
    expect(loadConfig({ DB_QUERY_TIMEOUT_MS: '9000' }).DB_QUERY_TIMEOUT_MS).toBe(9000);
  });

  it('rejects a query timeout that would fire before the statement timeout', () => {
    expect(() => loadConfig({ DB_STATEMENT_TIMEOUT_MS: '5000', DB_QUERY_TIMEOUT_MS: '5000' })).toThrow(
      /DB_QUERY_TIMEOUT_MS: must exceed DB_STATEMENT_TIMEOUT_MS/,
    );
  });

  it('accepts a separate migration URL and checks it like DATABASE_URL', () => {
    expect(loadConfig({ MIGRATE_DATABASE_URL: 'postgres://owner@db/campaigns' }).MIGRATE_DATABASE_URL).toBe('postgres://owner@db/campaigns');
    expect(() => loadConfig({ MIGRATE_DATABASE_URL: 'mysql://owner@db/campaigns' })).toThrow(/MIGRATE_DATABASE_URL/);
  });

  it('sheds load on event loop delay by default on PostgreSQL only: embedded queries run on the event loop', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://api@db/campaigns' }).OVERLOAD_MAX_EVENT_LOOP_DELAY_MS).toBe(1000);
    expect(loadConfig({}).OVERLOAD_MAX_EVENT_LOOP_DELAY_MS).toBe(0);
    expect(loadConfig({ OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '250' }).OVERLOAD_MAX_EVENT_LOOP_DELAY_MS).toBe(250);
  });

  it('checks the overload thresholds', () => {
    expect(loadConfig({ OVERLOAD_MAX_EVENT_LOOP_UTILIZATION: '0.95' }).OVERLOAD_MAX_EVENT_LOOP_UTILIZATION).toBe(0.95);
    expect(() => loadConfig({ OVERLOAD_MAX_EVENT_LOOP_UTILIZATION: '1.5' })).toThrow(/OVERLOAD_MAX_EVENT_LOOP_UTILIZATION/);
    expect(() => loadConfig({ OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '-1' })).toThrow(/OVERLOAD_MAX_EVENT_LOOP_DELAY_MS/);
  });

  it('takes a rate limit of zero as off, and rejects a negative one or a negative max-age', () => {
    expect(loadConfig({ RATE_LIMIT_MAX: '0' }).RATE_LIMIT_MAX).toBe(0);
    expect(() => loadConfig({ RATE_LIMIT_MAX: '-1' })).toThrow(/RATE_LIMIT_MAX/);
    expect(() => loadConfig({ CACHE_MAX_AGE_S: '-1' })).toThrow(/CACHE_MAX_AGE_S/);
  });

  it('turns the response cache on for a second by default; 0 turns it off', () => {
    expect(loadConfig({}).RESPONSE_CACHE_TTL_MS).toBe(1000);
    expect(loadConfig({ RESPONSE_CACHE_TTL_MS: '0' }).RESPONSE_CACHE_TTL_MS).toBe(0);
    expect(() => loadConfig({ RESPONSE_CACHE_TTL_MS: '60001' })).toThrow(/RESPONSE_CACHE_TTL_MS/);
  });

  it('compresses answers of 1024 bytes and more by default; the threshold is at least 1, so an empty 304 never is', () => {
    expect(loadConfig({})).toMatchObject({ COMPRESSION_ENABLED: true, COMPRESSION_MIN_BYTES: 1024 });
    expect(loadConfig({ COMPRESSION_ENABLED: 'false', COMPRESSION_MIN_BYTES: '1' })).toMatchObject({ COMPRESSION_ENABLED: false, COMPRESSION_MIN_BYTES: 1 });
    expect(() => loadConfig({ COMPRESSION_MIN_BYTES: '0' })).toThrow(/COMPRESSION_MIN_BYTES: must be a whole number from 1 to/);
    expect(() => loadConfig({ COMPRESSION_ENABLED: 'off' })).toThrow(/COMPRESSION_ENABLED: must be true or false/);
  });

  it("accepts exactly the private keys viem's secp256k1 accepts, without deriving them", () => {
    const order = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const hex = (value: bigint) => `0x${value.toString(16).padStart(64, '0')}` as const;
    for (const value of [0n, 1n, 2n, order - 1n, order, order + 1n, 2n ** 256n - 1n]) {
      let viemAccepts = true;
      try {
        privateKeyToAccount(hex(value));
      } catch {
        viemAccepts = false;
      }
      expect(checkSignerKeys([hex(value)], 'SIGNER_PRIVATE_KEY').problems, hex(value)).toEqual(
        viemAccepts ? [] : ['SIGNER_PRIVATE_KEY: key 1 is not a valid secp256k1 private key'],
      );
    }
    // One key in two spellings is one signer.
    const key = `0x${'ab'.repeat(32)}`;
    expect(checkSignerKeys([key, key.toUpperCase().replace('0X', '0x')], 'SIGNER_PRIVATE_KEY').problems).toEqual(['SIGNER_PRIVATE_KEY: a key is given twice']);
  });

  it('takes signing keys from SIGNER_PRIVATE_KEY or a key file, and never shows a key in a problem', () => {
    const key = `0x${'11'.repeat(32)}` as const;
    const other = `0x${'22'.repeat(32)}` as const;
    expect(loadConfig({ SIGNER_PRIVATE_KEY: `${key}, ${other}` }).SIGNER_PRIVATE_KEY).toBe(`${key}, ${other}`);
    const directory = mkdtempSync(join(tmpdir(), 'signer-keys-'));
    const file = join(directory, 'keys');
    writeFileSync(file, `# rotation: the new key first\n${other}\n\n${key} # the old one\n`);
    expect(loadSignerKeys({ SIGNER_KEY_FILE: file }).signers.map((signer) => signer.address)).toEqual([
      privateKeyToAccount(other).address,
      privateKeyToAccount(key).address,
    ]);
    const halfPasted = `0x${'ab'.repeat(31)}`;
    for (const [env, problem] of [
      [{ SIGNER_PRIVATE_KEY: `${key},${halfPasted}` }, 'SIGNER_PRIVATE_KEY: key 2 is not a 0x-prefixed 32-byte hex private key'],
      [{ SIGNER_PRIVATE_KEY: `${key},${key}` }, 'SIGNER_PRIVATE_KEY: a key is given twice'],
      [{ SIGNER_PRIVATE_KEY: `0x${'0'.repeat(64)}` }, 'SIGNER_PRIVATE_KEY: key 1 is not a valid secp256k1 private key'],
      [{ SIGNER_PRIVATE_KEY: key, SIGNER_KEY_FILE: file }, 'SIGNER_PRIVATE_KEY and SIGNER_KEY_FILE are both set; give the keys one way'],
      [{ SIGNER_KEY_FILE: join(directory, 'missing') }, `SIGNER_KEY_FILE: cannot read ${join(directory, 'missing')} (ENOENT)`],
    ] as const) {
      let error: unknown;
      try {
        loadConfig(env);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems).toContain(problem);
      expect((error as ConfigError).message).not.toContain(halfPasted.slice(2));
      expect((error as ConfigError).message).not.toContain(key.slice(2));
    }
    rmSync(directory, { recursive: true });
  });
});
