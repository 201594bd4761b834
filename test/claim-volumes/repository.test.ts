import { sql } from 'drizzle-orm';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { isDatabaseUnavailable } from '../../src/db/errors.js';
import { loadInWorker } from '../../src/claim-volumes/load-in-worker.js';
import { type ClaimChunk, type ClaimLoader, type ClaimsPerMinute, createClaimWindowsRepository } from '../../src/claim-volumes/repository.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { insertCampaign, insertClaim } from '../helpers/factories.js';

const NOW = new Date('2026-06-01T12:00:00.000Z');
const HOUR = 3_600_000;
const LOADED_FROM = new Date(NOW.getTime() - 6.5 * 24 * HOUR);

/** Every claim of the chunks as [campaign key, public ID, claimed at, USD micros], in the order read. */
function collector() {
  const claims: [number, string, number, number][] = [];
  let chunks = 0;
  const perMinute: ClaimsPerMinute[] = [];
  const collect = (chunk: ClaimChunk) => {
    if (chunk.perMinute) perMinute.push(chunk.perMinute);
    if (chunk.claims.campaign_keys.length === 0) return;
    chunks++;
    const ids = new Map<number, string>();
    for (let index = 0; index < chunk.campaigns.keys.length; index++) ids.set(chunk.campaigns.keys[index]!, chunk.campaigns.public_ids[index]!);
    for (let index = 0; index < chunk.claims.campaign_keys.length; index++) {
      const key = chunk.claims.campaign_keys[index]!;
      claims.push([key, ids.get(key)!, chunk.claims.claimed_at_us[index]!, chunk.claims.usd_micros[index]!]);
    }
  };
  return { claims, collect, chunks: () => chunks, perMinute };
}

/** Campaign i: i + 1 claims of i.25 USD, i days ago (those of 7 days or more are not loaded). */
async function insertWeekOfClaims(database: TestDatabase): Promise<void> {
  for (let index = 0; index < 7; index++) {
    const campaign = await insertCampaign(database.db);
    for (let claim = 0; claim <= index; claim++) {
      await insertClaim(database.db, {
        campaignKey: campaign.key,
        usdValue: `${index}.25`,
        claimedAt: new Date(NOW.getTime() - index * 24 * HOUR - claim * 1000),
      });
    }
  }
}

describe('claim windows repository: load', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
    await insertWeekOfClaims(database);
  });
  afterAll(() => database.close());

  const loadAll = async (keys: number, claimsPerChunk = 1000) => {
    const { claims, collect, chunks, perMinute } = collector();
    await createClaimWindowsRepository(database.db).load(LOADED_FROM, 60_000, collect, { keys, claims: claimsPerChunk });
    return { claims, chunks: chunks(), perMinute };
  };

  it('reads the same claims, with their campaigns public IDs, whatever the size of its chunks', async () => {
    const whole = await loadAll(1000);
    expect(whole.chunks).toBe(1);
    // Campaigns 0..6 have 1..7 claims, all made in the 6.5 days loaded.
    expect(whole.claims).toHaveLength(1 + 2 + 3 + 4 + 5 + 6 + 7);
    expect(whole.claims.every(([, publicId]) => publicId.startsWith('8453:'))).toBe(true);
    expect(whole.claims.find(([, , , usd]) => usd === 6_250_000)).toBeDefined();
    for (const keysPerChunk of [1, 3]) {
      const chunked = await loadAll(keysPerChunk);
      expect(chunked.chunks).toBeGreaterThan(1);
      expect(chunked.claims, `chunks of ${keysPerChunk}`).toEqual(whole.claims);
    }
  });

  it('first counts the claims it will read per minute and the campaigns, so their storage is sized once', async () => {
    const { claims, perMinute } = await loadAll(3);
    expect(perMinute).toHaveLength(1);
    const { starts_us, counts, campaigns } = perMinute[0]!;
    // Seven campaigns, each with claims loaded.
    expect(campaigns).toBe(7);
    expect(campaigns).toBeGreaterThanOrEqual(new Set(claims.map(([campaignKey]) => campaignKey)).size);
    const expected = new Map<number, number>();
    for (const [, , claimedAtUs] of claims) {
      const minute = Math.floor(claimedAtUs / 60_000_000) * 60_000_000;
      expected.set(minute, (expected.get(minute) ?? 0) + 1);
    }
    expect(new Map(Array.from(starts_us, (start, index) => [start, counts[index]!]))).toEqual(expected);
  });

  it("splits a range's claims into chunks of at most the claims it is given, none lost or read twice", async () => {
    const whole = await loadAll(1000);
    // 28 claims: with at most 4 a chunk, campaign 6's seven claims take two chunks; a page that
    // comes out exactly full (campaigns 0-2 in chunks of 3 keys: 6 claims, at most 3) is followed by an empty one.
    for (const [keys, claimsPerChunk] of [
      [1000, 4],
      [3, 3],
      [1, 1],
    ] as const) {
      const chunked = await loadAll(keys, claimsPerChunk);
      expect(chunked.chunks, `${keys} keys, ${claimsPerChunk} claims`).toBeGreaterThanOrEqual(Math.ceil(whole.claims.length / claimsPerChunk));
      expect(chunked.claims, `${keys} keys, ${claimsPerChunk} claims`).toEqual(whole.claims);
    }
  });
});

describe.skipIf(inject('testDatabase').kind !== 'postgres')('claim windows load on a worker thread', () => {
  let database: TestDatabase;
  let load: ClaimLoader;

  beforeAll(async () => {
    database = await createTestDatabase();
    await insertWeekOfClaims(database);
    load = loadInWorker(database.readConnection!);
  });
  afterAll(() => database.close());

  it('hands over the claims the repository reads, as typed arrays, one chunk at a time', async () => {
    const here = collector();
    const { version } = await createClaimWindowsRepository(database.db).load(LOADED_FROM, 60_000, here.collect);

    const there = collector();
    let applying = 0;
    let overlapping = false;
    const loaded = await load(LOADED_FROM, 60_000, async (chunk) => {
      expect(chunk.claims.campaign_keys).toBeInstanceOf(Int32Array);
      expect(chunk.claims.claimed_at_us).toBeInstanceOf(Float64Array);
      overlapping ||= applying > 0;
      applying++;
      // A slow consumer: the worker must wait for it rather than pile chunks up.
      await new Promise((resolve) => setTimeout(resolve, 5));
      there.collect(chunk);
      applying--;
    });

    expect(there.claims).toEqual(here.claims);
    expect(there.claims).toHaveLength(28);
    expect(there.perMinute.map(({ starts_us, counts, campaigns }) => [Array.from(starts_us), Array.from(counts), campaigns])).toEqual(
      here.perMinute.map(({ starts_us, counts, campaigns }) => [Array.from(starts_us), Array.from(counts), campaigns]),
    );
    expect(overlapping).toBe(false);
    expect(loaded.version).toBe(version);
    expect(loaded.position.snapshot).toMatch(/^\d+:\d+:/);
  });

  it('is where a server with CLAIM_LOAD_IN_WORKER loads, and it ranks as one loading on its main thread', async () => {
    const logged: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void logged.push(JSON.parse(line) as Record<string, unknown>) });
    const answers: unknown[] = [];
    for (const onWorker of ['true', 'false']) {
      const app = await buildTestApp(database, { CLAIM_LOAD_IN_WORKER: onWorker }, undefined, { logger, clock: () => NOW });
      try {
        // Ready once loaded: a worker compiling the TypeScript sources takes a second or so.
        let ready = 0;
        for (let attempt = 0; attempt < 100 && ready !== 200; attempt++) {
          if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 200));
          ready = (await app.inject('/health/ready')).statusCode;
        }
        expect(ready).toBe(200);
        answers.push((await app.inject('/explore?timePeriod=7d&sortBy=total-spend')).json());
      } finally {
        await app.close();
      }
    }
    const loads = logged.filter((line) => line.msg === 'claim volumes loaded');
    expect(loads.map(({ thread, claims }) => ({ thread, claims }))).toEqual([
      { thread: 'worker', claims: 28 },
      { thread: 'main', claims: 28 },
    ]);
    // All seven campaigns have claims in the last week, each ranked by its volume there.
    expect(answers[0]).toMatchObject({ totalCount: 7 });
    expect(answers[0]).toEqual(answers[1]);
  });

  it("rejects with the database's error, its SQLSTATE kept for the error handler", async () => {
    const { url, settings } = database.readConnection!;
    const missing = loadInWorker({ url: url.replace(/\/[^/?]+(\?|$)/, '/no_such_database$1'), settings });
    const failed = missing(LOADED_FROM, 60_000, () => undefined);
    await expect(failed).rejects.toMatchObject({ code: '3D000' });
    await expect(failed).rejects.toThrow('no_such_database');
  });

  it('rejects with what the driver said when the connection drops mid-load, so the error handler sees an unavailable database', async () => {
    const { url, settings } = database.readConnection!;
    const dropped = loadInWorker({ url, settings: { ...settings, DB_APPLICATION_NAME: 'claim load dropped mid-way' } });
    const failed = dropped(LOADED_FROM, 60_000, async () => {
      // The worker's backend ends between two chunks, as when the database stops.
      await database.db.execute(sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'claim load dropped mid-way'`);
    });
    await expect(failed).rejects.toSatisfy(isDatabaseUnavailable);
  });

  it('rejects with the error of a chunk that could not be applied, and when abandoned', async () => {
    await expect(
      load(LOADED_FROM, 60_000, () => {
        throw new Error('cannot apply');
      }),
    ).rejects.toThrow('cannot apply');

    const closing = new AbortController();
    const abandoned = load(LOADED_FROM, 60_000, () => closing.abort(), closing.signal);
    await expect(abandoned).rejects.toThrow('claim load abandoned');

    closing.abort();
    await expect(load(LOADED_FROM, 60_000, () => undefined, closing.signal)).rejects.toThrow('claim load abandoned');
  });
});

describe('claim windows repository: changes since a position', () => {
  let database: TestDatabase;
  let campaignKey: number;

  beforeAll(async () => {
    database = await createTestDatabase();
    campaignKey = (await insertCampaign(database.db)).key;
  });
  afterAll(() => database.close());

  it('returns the changes committed since, or none when there are more than the caller takes at once', async () => {
    const repository = createClaimWindowsRepository(database.db);
    const { position, version } = await repository.load(new Date(NOW.getTime() - 24 * HOUR), 60_000, () => undefined);

    const quiet = await repository.changesSince(position);
    expect(quiet.changes).toEqual([]);
    expect(quiet.version).toBe(version);
    expect(quiet.position.atMs).toBeGreaterThanOrEqual(position.atMs);

    for (const usdValue of ['1.5', '2.5', '3.5']) await insertClaim(database.db, { campaignKey, usdValue, claimedAt: NOW });
    expect((await repository.changesSince(position, 2)).changes).toBeUndefined();
    const all = await repository.changesSince(position, 3);
    expect(all.changes?.map((change) => [change.campaign_key, change.sign, change.usd_micros, change.claimed_at_us])).toEqual(
      ['1.5', '2.5', '3.5'].map((usd) => [campaignKey, 1, Number(usd) * 1_000_000, NOW.getTime() * 1000]),
    );
    // From the new position nothing is new.
    expect((await repository.changesSince(all.position)).changes).toEqual([]);
  });
});
