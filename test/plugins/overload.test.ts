import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/** Blocks the event loop in back-to-back slices for `totalMs`, as a CPU-bound process would. */
async function saturateEventLoop(totalMs: number, sliceMs = 100): Promise<void> {
  const stopAt = Date.now() + totalMs;
  await new Promise<void>((resolve) => {
    const slice = () => {
      const end = Date.now() + sliceMs;
      while (Date.now() < end) {
        // busy: nothing else may run
      }
      if (Date.now() < stopAt) setImmediate(slice);
      else resolve();
    };
    setImmediate(slice);
  });
}

describe('overload protection (@fastify/under-pressure)', () => {
  let database: TestDatabase;
  let app: App;

  beforeAll(async () => {
    database = await createTestDatabase();
    app = await buildTestApp(database, { OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '30' });
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it('answers 503 in the envelope with Retry-After while the event loop lags; liveness and metrics still answer', async () => {
    expect((await app.inject('/campaigns')).statusCode).toBe(200);

    // Longer than two sampling intervals (1 s each), so that one whole interval lies inside the lag:
    // a sample is the mean delay since the one before, and one that saw only part of the lag (the
    // other part calm) can average it below the threshold, which made 1.5 s flaky under load.
    await saturateEventLoop(2500);
    const [api, ready, live, metrics] = await Promise.all(
      ['/campaigns', '/health/ready', '/health/live', '/metrics'].map((url) => app.inject(url)),
    );
    expect(api!.statusCode).toBe(503);
    expect(api!.headers['retry-after']).toMatch(/^\d+$/);
    expect(api!.json()).toEqual({ error: 'the server is overloaded; retry shortly' });
    expect(ready!.statusCode).toBe(503);
    expect(live!.statusCode).toBe(200);
    expect(metrics!.statusCode).toBe(200);

    // Once a calm sampling interval has passed, it serves again.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect((await app.inject('/campaigns')).statusCode).toBe(200);
  });

  it('is off when every threshold is 0', async () => {
    const relaxed = await buildTestApp(database, { OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0' });
    try {
      await saturateEventLoop(1500);
      expect((await relaxed.inject('/campaigns')).statusCode).toBe(200);
    } finally {
      await relaxed.close();
    }
  });
});
