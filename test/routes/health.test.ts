import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { createClaimWindowsRepository } from '../../src/claim-volumes/repository.js';
import { ClaimWindows } from '../../src/claim-volumes/claim-windows.js';
import { buildTestApp, useTestApp } from '../helpers/app.js';

describe('health routes', () => {
  const setup = useTestApp();

  it('GET /health/live answers while the process runs', async () => {
    const response = await setup.app.inject('/health/live');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
  });

  it('GET /health/ready answers 200 when the database does, with each part it waited for', async () => {
    const response = await setup.app.inject('/health/ready');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok', checks: { startup: 'done', database: 'ok', replica: 'none', claimVolumes: 'loaded' } });
  });

  it('GET /health/ready answers 503 in the envelope when the database is gone', async () => {
    const gone = await openDatabase({
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/gone',
      PGLITE_DATA_DIR: 'memory://',
      DB_POOL_MAX: 1,
      DB_STATEMENT_TIMEOUT_MS: 1000,
      DB_CONNECT_TIMEOUT_MS: 500,
    });
    const unready = await buildTestApp(gone);
    try {
      const response = await unready.inject('/health/ready');
      expect(response.statusCode).toBe(503);
      expect(response.headers['retry-after']).toBeDefined();
      expect(response.json()).toEqual({
        error: 'database is not reachable',
        checks: { startup: 'done', database: 'unreachable', replica: 'none', claimVolumes: expect.any(String) as string },
      });
    } finally {
      await unready.close();
      await gone.close();
    }
  });

  it('GET /health/ready answers 503 until the claim volumes are loaded, then 200; the 503 logs a warning, not an error', async () => {
    const repository = createClaimWindowsRepository(setup.database.db);
    const load = repository.load.bind(repository);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    vi.spyOn(repository, 'load').mockImplementation(async (...args) => {
      await gate;
      return load(...args);
    });
    const claimWindows = new ClaimWindows(repository, { pollMs: 60_000, targetsRefreshMs: 60_000, logger: { info: () => undefined, warn: () => undefined } });
    const logs: { level: number; msg: string; reason?: string; err?: unknown }[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => logs.push(JSON.parse(line) as (typeof logs)[number]) });
    const loading = await buildTestApp(setup.database, {}, undefined, { claimWindows, logger });
    try {
      const response = await loading.inject('/health/ready');
      expect(response.statusCode).toBe(503);
      expect(response.headers['retry-after']).toBeDefined();
      expect(response.json()).toEqual({
        error: 'starting: loading claim volumes',
        checks: { startup: 'done', database: 'ok', replica: 'none', claimVolumes: 'loading' },
      });
      // Every readiness probe during a deploy answers this: a state, not a fault.
      expect(logs.filter((entry) => entry.level >= 50)).toEqual([]);
      expect(logs).toContainEqual(expect.objectContaining({ level: 40, msg: 'request refused', reason: 'starting: loading claim volumes' }));
      expect(logs.find((entry) => entry.msg === 'request refused')).not.toHaveProperty('err');
      release();
      expect((await loading.inject('/health/ready')).statusCode).toBe(200);
    } finally {
      release();
      await loading.close();
    }
  });
});
