import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../src/app.js';
import { prepareDemo } from '../src/demo.js';
import { buildTestApp } from './helpers/app.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';

/** The zero-setup start: the demo token it prints opens both staging routes. */
describe('demo start-up', () => {
  const now = new Date('2025-03-10T12:00:00.000Z');
  let database: TestDatabase;
  let app: App;
  let token: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    token = await prepareDemo(database, pino({ level: 'silent' }), now);
    app = await buildTestApp(database, {}, undefined, { clock: () => now });
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  const get = (url: string, bearer = token) => app.inject({ url, headers: { authorization: `Bearer ${bearer}` } });

  it('lists the demo user’s access lists with the printed token', async () => {
    const response = await get('/campaigns/accesslists');
    expect(response.statusCode).toBe(200);
    const page = response.json<{ accesslists: unknown[]; totalAccesslists: number }>();
    expect(page.accesslists).toHaveLength(10);
    expect(page.totalAccesslists).toBeGreaterThanOrEqual(12);
  });

  it('shows the demo user’s profile with the printed token', async () => {
    const response = await get('/users/profile');
    expect(response.statusCode).toBe(200);
    const profile = response.json<{ ethEarned: string; score: number; ranking: number; streak: { lastCompletionTime: string } }>();
    expect(profile.score).toBe(2500);
    expect(BigInt(profile.ethEarned)).toBeGreaterThan(0n);
    expect(profile.ranking).toBeGreaterThanOrEqual(1);
    expect(Date.parse(profile.streak.lastCompletionTime)).toBeLessThanOrEqual(now.getTime());
  });

  it('revokes the previous demo token when it issues a new one', async () => {
    const next = await prepareDemo(database, pino({ level: 'silent' }), now);
    expect((await get('/users/profile', next)).statusCode).toBe(200);
    expect((await get('/users/profile', token)).statusCode).toBe(401);
    token = next;
  });
});
