import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { insertApiToken, insertCampaign, insertClaim, insertUser } from '../helpers/factories.js';

/** Days are UTC days: the database session runs fourteen hours ahead to prove the time zone is ignored. */
const SESSION_TIME_ZONE = 'Pacific/Kiritimati';

describe('GET /users/profile', () => {
  let database: TestDatabase;
  let app: App;
  let now: Date;
  let campaignKey: number;

  beforeAll(async () => {
    database = await createTestDatabase();
    if (database.url) {
      // Before the pool opens its first connection, so that every session gets it.
      const admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      await admin.query(`ALTER DATABASE "${new URL(database.url).pathname.slice(1)}" SET timezone = '${SESSION_TIME_ZONE}'`);
      await admin.end();
    } else {
      await database.db.execute(sql.raw(`SET TIME ZONE '${SESSION_TIME_ZONE}'`));
    }
    campaignKey = (await insertCampaign(database.db)).key;
    app = await buildTestApp(database, {}, undefined, { clock: () => now });
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  /** A user with a token and claims at the given times (ISO 8601), each worth `ethValueWei`. */
  async function userWithClaims(score: number, claimTimes: string[], ethValueWei = '1000') {
    const user = await insertUser(database.db, { score });
    for (const at of claimTimes) {
      await insertClaim(database.db, { campaignKey, claimant: user.address, claimedAt: new Date(at), ethValueWei });
    }
    const { token } = await insertApiToken(database.db, user.id);
    return { user, token };
  }

  async function profileOf(token: string) {
    const response = await app.inject({ url: '/users/profile', headers: { authorization: `Bearer ${token}` } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('private, no-store');
    return response.json<Record<string, unknown>>();
  }

  it('gives a user without claims a valid profile: nothing earned, an inactive streak of 0', async () => {
    now = new Date('2025-03-10T12:00:00.000Z');
    const { token } = await userWithClaims(70, []);
    const { ranking, ...profile } = await profileOf(token);
    expect(profile).toEqual({
      ethEarned: '0',
      score: 70,
      streak: { value: 0, status: 'inactive', lastExpirationTime: null, nextExpirationTime: null, lastCompletionTime: null },
    });
    expect(ranking).toBeTypeOf('number');
  });

  it('counts a streak across UTC midnight and reports when the previous, broken one ended', async () => {
    now = new Date('2025-03-10T12:00:00.000Z');
    const { token } = await userWithClaims(10, [
      '2025-03-01T10:00:00.000Z',
      '2025-03-02T22:00:00.000Z',
      // A gap on 03-03 .. 03-07 breaks the streak; then three days, the first two a minute apart.
      '2025-03-08T23:59:00.000Z',
      '2025-03-09T00:01:00.000Z',
      '2025-03-09T18:00:00.000Z',
      '2025-03-10T08:00:00.123Z',
    ]);
    expect((await profileOf(token)).streak).toEqual({
      value: 3,
      status: 'active',
      lastExpirationTime: '2025-03-04T00:00:00.000Z',
      nextExpirationTime: '2025-03-12T00:00:00.000Z',
      lastCompletionTime: '2025-03-10T08:00:00.123Z',
    });
  });

  it('counts claims an hour apart on one UTC day once, though they fall on two days in the session time zone', async () => {
    now = new Date('2025-03-09T12:00:00.000Z');
    const { token } = await userWithClaims(10, ['2025-03-09T09:00:00.000Z', '2025-03-09T11:00:00.000Z']);
    expect((await profileOf(token)).streak).toMatchObject({ value: 1, status: 'active', lastExpirationTime: null });
  });

  it('keeps a streak active through the day after the last claim day and ends it at the following midnight', async () => {
    const { token } = await userWithClaims(10, ['2025-03-08T12:00:00.000Z', '2025-03-09T23:59:59.999Z']);
    const active = {
      value: 2,
      status: 'active',
      lastExpirationTime: null,
      nextExpirationTime: '2025-03-11T00:00:00.000Z',
      lastCompletionTime: '2025-03-09T23:59:59.999Z',
    };
    now = new Date('2025-03-09T23:59:59.999Z');
    expect((await profileOf(token)).streak).toEqual(active);
    now = new Date('2025-03-10T23:59:59.999Z');
    expect((await profileOf(token)).streak).toEqual(active);

    now = new Date('2025-03-11T00:00:00.000Z');
    expect((await profileOf(token)).streak).toEqual({
      value: 0,
      status: 'inactive',
      lastExpirationTime: '2025-03-11T00:00:00.000Z',
      nextExpirationTime: null,
      lastCompletionTime: '2025-03-09T23:59:59.999Z',
    });
  });

  it('sums ETH earned exactly, beyond what a JS number holds, and only over the caller’s own claims', async () => {
    now = new Date('2025-03-10T12:00:00.000Z');
    const first = `4${'0'.repeat(68)}123456789`; // 78 digits
    const second = `5${'0'.repeat(68)}987654321`; // 78 digits
    const user = await insertUser(database.db, { score: 10 });
    for (const ethValueWei of [first, second, '1']) {
      await insertClaim(database.db, { campaignKey, claimant: user.address, claimedAt: now, ethValueWei });
    }
    await userWithClaims(10, ['2025-03-10T01:00:00.000Z'], '999');
    const { token } = await insertApiToken(database.db, user.id);

    const { ethEarned } = await profileOf(token);
    const expected = (BigInt(first) + BigInt(second) + 1n).toString();
    expect(expected).toHaveLength(78);
    expect(ethEarned).toBe(expected);
  });

  it('ranks by score with shared ranks: one plus the number of users with a strictly higher score', async () => {
    // Scores here sit above every other user of this file, so the ranks are known exactly.
    const top = await userWithClaims(9000, []);
    const tiedA = await userWithClaims(8000, ['2025-03-10T01:00:00.000Z']);
    const tiedB = await userWithClaims(8000, []);
    const next = await userWithClaims(7000, []);
    const ranks = await Promise.all([top, tiedA, tiedB, next].map(async ({ token }) => (await profileOf(token)).ranking));
    expect(ranks).toEqual([1, 2, 2, 4]);
    expect((await profileOf(tiedA.token)).score).toBe(8000);
  });

  it('takes no query parameters', async () => {
    const { token } = await userWithClaims(10, []);
    const response = await app.inject({ url: '/users/profile?userId=x', headers: { authorization: `Bearer ${token}` } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: "unknown query parameter 'userId'" });
  });
});
