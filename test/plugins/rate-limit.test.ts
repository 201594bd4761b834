import { randomInt } from 'node:crypto';
import { connect } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** CI starts Redis (.ci/run); elsewhere the shared-budget tests say why they skip. */
const redisUp = await new Promise<boolean>((resolve) => {
  const { hostname, port } = new URL(REDIS_URL);
  const socket = connect({ host: hostname, port: Number(port || 6379) });
  socket.setTimeout(1000, () => socket.destroy());
  socket.once('connect', () => {
    socket.end();
    resolve(true);
  });
  socket.once('close', () => resolve(false));
  socket.once('error', () => resolve(false));
});
if (!redisUp) console.warn(`Redis does not answer at ${REDIS_URL}: the shared rate limit tests are skipped (set TEST_REDIS_URL)`);

describe('rate limit per client IP', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database.close();
  });

  /** A fresh app (fresh budgets) allowing `max` requests a minute, with extra settings. */
  async function withApp(settings: Record<string, string>, test: (app: App) => Promise<void>, logger = pino({ level: 'silent' })) {
    const app = await buildTestApp(database, { RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW_MS: '60000', ...settings }, undefined, { logger });
    try {
      await test(app);
    } finally {
      await app.close();
    }
  }

  it('answers over budget with 429 in the envelope, Retry-After and the budget headers', async () => {
    await withApp({}, async (app) => {
      const first = await app.inject('/campaigns');
      expect(first.statusCode).toBe(200);
      expect(first.headers['x-ratelimit-limit']).toBe('2');
      expect(first.headers['x-ratelimit-remaining']).toBe('1');
      expect((await app.inject('/campaigns')).statusCode).toBe(200);

      const limited = await app.inject('/campaigns');
      expect(limited.statusCode).toBe(429);
      expect(limited.headers['content-type']).toMatch(/^application\/json/);
      const body = limited.json<Record<string, string>>();
      expect(Object.keys(body)).toEqual(['error']);
      expect(body.error).toMatch(/^rate limit exceeded: at most 2 requests per minute; retry in /);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect(limited.headers['x-ratelimit-remaining']).toBe('0');
      // A 429 is an error: never cacheable.
      expect(limited.headers['cache-control']).toBeUndefined();
    });
  });

  it('is off with RATE_LIMIT_MAX=0', async () => {
    await withApp({ RATE_LIMIT_MAX: '0' }, async (app) => {
      for (let i = 0; i < 5; i++) {
        const response = await app.inject('/campaigns');
        expect(response.statusCode).toBe(200);
        expect(response.headers['x-ratelimit-limit']).toBeUndefined();
      }
    });
  });

  it('counts each client IP on its own', async () => {
    await withApp({}, async (app) => {
      const from = (remoteAddress: string) => app.inject({ url: '/campaigns', remoteAddress });
      await from('192.0.2.1');
      await from('192.0.2.1');
      expect((await from('192.0.2.1')).statusCode).toBe(429);
      expect((await from('192.0.2.2')).statusCode).toBe(200);
    });
  });

  it('exempts the health probes', async () => {
    await withApp({}, async (app) => {
      for (let i = 0; i < 5; i++) {
        expect((await app.inject('/health/live')).statusCode).toBe(200);
        expect((await app.inject('/health/ready')).statusCode).toBe(200);
      }
    });
  });

  it('ignores X-Forwarded-For unless TRUST_PROXY names the proxy', async () => {
    const viaProxy = (app: App, client: string) =>
      app.inject({ url: '/campaigns', remoteAddress: '10.1.2.3', headers: { 'x-forwarded-for': client } });

    await withApp({}, async (app) => {
      await viaProxy(app, '198.51.100.1');
      await viaProxy(app, '198.51.100.2');
      // Without trust, every client behind the proxy shares the proxy's budget.
      expect((await viaProxy(app, '198.51.100.3')).statusCode).toBe(429);
    });

    await withApp({ TRUST_PROXY: '10.0.0.0/8' }, async (app) => {
      await viaProxy(app, '198.51.100.1');
      await viaProxy(app, '198.51.100.1');
      expect((await viaProxy(app, '198.51.100.1')).statusCode).toBe(429);
      expect((await viaProxy(app, '198.51.100.2')).statusCode).toBe(200);
    });
  });

  it('sends the IETF draft headers beside the X-RateLimit ones', async () => {
    await withApp({}, async (app) => {
      const first = await app.inject('/campaigns');
      expect(first.headers['ratelimit-policy']).toBe('"default";q=2;w=60');
      expect(first.headers.ratelimit).toBe('"default";r=1;t=60');
      await app.inject('/campaigns');
      const limited = await app.inject('/campaigns');
      expect(limited.statusCode).toBe(429);
      expect(limited.headers.ratelimit).toMatch(/^"default";r=0;t=\d+$/);
      // Routes that opt out carry neither.
      expect((await app.inject('/health/live')).headers.ratelimit).toBeUndefined();
    });
  });

  it('counts answers served from the response cache, which carry the budget headers', async () => {
    await withApp({ RESPONSE_CACHE_TTL_MS: '60000', RATE_LIMIT_MAX: '3' }, async (app) => {
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await app.inject('/campaigns?pageSize=1'));
      expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 429]);
      // The second and third came from the cache (same ETag, no new query), and still counted.
      expect(answers[1]!.headers.etag).toBe(answers[0]!.headers.etag);
      expect(answers.map((answer) => answer.headers['x-ratelimit-remaining'])).toEqual(['2', '1', '0', '0']);
      expect(answers[2]!.headers.ratelimit).toBe('"default";r=0;t=60');
    });
  });

  it('lets requests through when Redis cannot be reached, with a warning and a metric', async () => {
    const lines: Array<{ level: number; msg: string }> = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line) as { level: number; msg: string }) });
    // Nothing listens on port 1.
    await withApp({ RATE_LIMIT_REDIS_URL: 'redis://127.0.0.1:1', RATE_LIMIT_MAX: '1' }, async (app) => {
      for (let i = 0; i < 4; i++) expect((await app.inject('/campaigns')).statusCode).toBe(200);
      const metrics = (await app.inject('/metrics')).body;
      const failures = Number(/^rate_limit_store_errors_total (\d+)$/m.exec(metrics)?.[1]);
      expect(failures).toBeGreaterThanOrEqual(4);
    }, logger);
    const warnings = lines.filter((line) => line.msg.startsWith('rate limit store unreachable'));
    // Once per outage, not once per request.
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings[0])).toContain('Redis at 127.0.0.1:1');
  });

  describe.runIf(redisUp)('budgets shared in Redis (RATE_LIMIT_REDIS_URL)', () => {
    const redisUrl = REDIS_URL;
    /** A client address of its own per run, so that runs sharing the Redis do not share budgets. */
    const freshClient = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

    it('two apps (replicas) share one budget per client', async () => {
      const settings = { RATE_LIMIT_REDIS_URL: redisUrl, RATE_LIMIT_MAX: '3' };
      await withApp(settings, async (first) => {
        await withApp(settings, async (second) => {
          const client = freshClient();
          const ask = (app: App) => app.inject({ url: '/campaigns', remoteAddress: client });
          const answers = [await ask(first), await ask(second), await ask(first), await ask(second), await ask(first)];
          expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 429, 429]);
          expect(answers.map((answer) => answer.headers['x-ratelimit-remaining'])).toEqual(['2', '1', '0', '0', '0']);
          // Another client has its own budget in the same store.
          expect((await first.inject({ url: '/campaigns', remoteAddress: freshClient() })).statusCode).toBe(200);
        });
      });
    });
  });
});
