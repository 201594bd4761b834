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
