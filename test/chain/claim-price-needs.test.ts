import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import type { ClaimPriceNeeds } from '../../src/indexer/core-indexer.js';
import { ASSET, anvilBinary, type Deployed, type LocalChain } from '../../scripts/chain/local-chain.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { createCampaigns, importRecords, indexOnce, makeClaims, operatorRecords, startChain } from './chain-fixture.js';

/**
 * The indexer says what a block range's claims need priced (npm run index gives it to the price
 * job) before it writes the range: every claim's time and the assets of the range's campaigns.
 */
describe.skipIf(anvilBinary() === null)('the indexer before it writes claims', () => {
  let chain: LocalChain;
  let deployed: Deployed;
  let database: TestDatabase;
  const calls: { chainId: number; needs: ClaimPriceNeeds; claimsStored: number }[] = [];

  beforeAll(async () => {
    ({ chain, deployed } = await startChain());
    database = await createTestDatabase();
    await importRecords(database, operatorRecords(chain.chainId));
    await createCampaigns(chain, deployed);
    await makeClaims(chain, deployed);
    await indexOnce(chain, deployed.core, database, {}, {
      beforeClaims: async (chainId, needs) => {
        const [row] = await queryRows<{ claims: number }>(database.db, sql`SELECT count(*)::int AS claims FROM claims`);
        calls.push({ chainId, needs, claimsStored: row!.claims });
      },
    });
  });
  afterAll(async () => {
    await database?.close();
    await chain?.stop();
  });

  it("gives every claim's time and the ranges' campaign assets, before the claims are stored", async () => {
    const claims = await queryRows<{ claimed_at: Date }>(database.db, sql`SELECT claimed_at FROM claims ORDER BY claimed_at`);
    expect(claims.length).toBeGreaterThan(0);
    expect(calls.every((call) => call.chainId === chain.chainId)).toBe(true);
    expect(calls[0]?.claimsStored).toBe(0);
    const times = calls.flatMap((call) => call.needs.times.map((time) => time.getTime())).sort((a, b) => a - b);
    expect(times).toEqual(claims.map((claim) => new Date(claim.claimed_at).getTime()));
    expect(calls.flatMap((call) => call.needs.assets)).toContain(ASSET.toLowerCase());
  });
});
