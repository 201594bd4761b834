import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../src/app.js';
import { StartupWork } from '../src/startup.js';
import { buildTestApp } from './helpers/app.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';

const quiet = pino({ level: 'silent' });
const unavailable = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

describe('StartupWork', () => {
  it('retries while the database is unavailable, then resolves and stops being pending', async () => {
    const work = new StartupWork(quiet, 'migrations are not applied yet');
    let attempts = 0;
    const result = await work.run(async () => {
      attempts++;
      expect(work.pending()).toBe('migrations are not applied yet');
      if (attempts < 3) throw new Error('cannot reach the database', { cause: unavailable() });
      return 'done';
    });
    expect(result).toBe('done');
    expect(attempts).toBe(3);
    expect(work.pending()).toBeUndefined();
  });

  it('gives up at once on an error waiting cannot fix (a broken migration, a missing privilege)', async () => {
    const work = new StartupWork(quiet, 'migrations are not applied yet');
    const denied = Object.assign(new Error('permission denied for schema public'), { code: '42501' });
    let attempts = 0;
    await expect(
      work.run(async () => {
        attempts++;
        throw denied;
      }),
    ).rejects.toBe(denied);
    expect(attempts).toBe(1);
    expect(work.pending()).toBe('migrations are not applied yet');
  });

  it('stops retrying when asked (shutdown)', async () => {
    const work = new StartupWork(quiet, 'waiting');
    const running = work.run(async () => {
      throw unavailable();
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    work.stop();
    await expect(running).resolves.toBeUndefined();
  });
});

describe('the app while start-up work is pending', () => {
  let database: TestDatabase;
  let app: App;
  let pending: string | undefined = 'database migrations are not applied yet';

  beforeAll(async () => {
    database = await createTestDatabase();
    app = await buildTestApp(database, {}, undefined, { startup: { pending: () => pending } });
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it('answers the API and readiness with 503 and Retry-After, liveness with 200, and serves once done', async () => {
    for (const url of ['/campaigns', '/campaigns/8453:0x0000000000000000000000000000000000000001:1', '/reward-kit/trending', '/explore/contracts']) {
      const response = await app.inject(url);
      expect(response.statusCode, url).toBe(503);
      expect(response.headers['retry-after'], url).toMatch(/^\d+$/);
      expect(response.json(), url).toEqual({
        error: 'the service is starting: database migrations are not applied yet; retry shortly',
      });
    }
    const ready = await app.inject('/health/ready');
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toEqual({
      error: 'starting: database migrations are not applied yet',
      checks: { startup: 'database migrations are not applied yet', database: 'not checked', replica: 'none', claimVolumes: expect.any(String) as string },
    });
    expect((await app.inject('/health/live')).statusCode).toBe(200);
    // Unknown routes are still 404s: only the API waits for the schema.
    expect((await app.inject('/nowhere')).statusCode).toBe(404);

    pending = undefined;
    expect((await app.inject('/campaigns')).statusCode).toBe(200);
    expect((await app.inject('/health/ready')).statusCode).toBe(200);
  });
});
