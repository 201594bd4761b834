import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClaimWindowsRepository } from '../../src/repositories/claim-windows.repository.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { insertCampaign, insertClaim } from '../helpers/factories.js';

const NOW = new Date('2026-06-01T12:00:00.000Z');
const HOUR = 3_600_000;

describe('claim windows repository: snapshot', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
    for (let index = 0; index < 7; index++) {
      const campaign = await insertCampaign(database.db);
      // Campaign i: i + 1 claims of i.25 USD, i hours ago (the first within the hour).
      for (let claim = 0; claim <= index; claim++) {
        await insertClaim(database.db, {
          campaignKey: campaign.key,
          usdValue: `${index}.25`,
          claimedAt: new Date(NOW.getTime() - index * HOUR - 60_000),
        });
      }
    }
  });
  afterAll(() => database.close());

  it('reads the same columns whether the campaigns arrive in one row or in rows of a few', async () => {
    const repository = createClaimWindowsRepository(database.db);
    const whole = await repository.snapshot(NOW, HOUR, 60_000);
    expect(whole.columns.campaign_keys).toHaveLength(7);
    expect(whole.columns.claims[0]).toEqual([1, 0, 0, 0, 0, 0, 0]); // 1h
    expect(whole.columns.usd_micros[3]).toEqual([0, 1, 2, 3, 4, 5, 6].map((index) => (index + 1) * (index * 1_000_000 + 250_000))); // 7d
    for (const chunkSize of [1, 3, 7]) {
      expect((await repository.snapshot(NOW, HOUR, 60_000, chunkSize)).columns, `chunks of ${chunkSize}`).toEqual(whole.columns);
    }
  });
});
