import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClaimChunk, createClaimWindowsRepository } from '../../src/repositories/claim-windows.repository.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { insertCampaign, insertClaim } from '../helpers/factories.js';

const NOW = new Date('2026-06-01T12:00:00.000Z');
const HOUR = 3_600_000;

describe('claim windows repository: load', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
    for (let index = 0; index < 7; index++) {
      const campaign = await insertCampaign(database.db);
      // Campaign i: i + 1 claims of i.25 USD, i days ago (those of 7 days or more are not loaded).
      for (let claim = 0; claim <= index; claim++) {
        await insertClaim(database.db, {
          campaignKey: campaign.key,
          usdValue: `${index}.25`,
          claimedAt: new Date(NOW.getTime() - index * 24 * HOUR - claim * 1000),
        });
      }
    }
  });
  afterAll(() => database.close());

  const loadAll = async (keysPerChunk: number) => {
    const claims: [number, string, number, number][] = [];
    let chunks = 0;
    await createClaimWindowsRepository(database.db).load(
      new Date(NOW.getTime() - 6.5 * 24 * HOUR),
      60_000,
      (chunk: ClaimChunk) => {
        chunks++;
        const ids = new Map(chunk.campaigns.keys.map((key, index) => [key, chunk.campaigns.public_ids[index]!]));
        chunk.claims.campaign_keys.forEach((key, index) =>
          claims.push([key, ids.get(key)!, chunk.claims.claimed_at_us[index]!, chunk.claims.usd_micros[index]!]),
        );
      },
      keysPerChunk,
    );
    return { claims, chunks };
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
