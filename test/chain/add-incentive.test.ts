import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { queryRows } from '../../src/db/client.js';
import { exportRecords } from '../../src/ingest/export.js';
import { claimFor, type Deployed, deploy, type LocalChain, send, userAddress, VENUE } from '../../scripts/chain/local-chain.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { createCampaigns, importRecords, indexOnce, operatorRecords, startChain } from './chain-fixture.js';

/**
 * An incentive added to a live boost (addIncentiveToBoost: IncentiveAdded with isNewBoost false)
 * rewrites the campaign with getBoost()'s incentives, and what the operator imported beside the
 * chain (the campaign's name) is kept.
 */

describe('indexer: an incentive added to an existing boost', () => {
  let chain: LocalChain;
  let deployed: Deployed;
  let database: TestDatabase;
  let app: App;

  beforeAll(async () => {
    ({ chain, deployed } = await startChain());
    database = await createTestDatabase();
    await importRecords(database, operatorRecords(chain.chainId));
    await createCampaigns(chain, deployed);
    await indexOnce(chain, deployed.core, database);
    app = await buildTestApp(database);
  });

  afterAll(async () => {
    await app?.close();
    await database?.close();
    await chain?.stop();
  });

  it('rewrites the campaign with the new incentive, its claims indexed, the imported name kept', async () => {
    const id = `${chain.chainId}:${deployed.core.toLowerCase()}:0`;
    // The operator names the campaign (a whole record, as an import writes it).
    const stored = await database.bulkTransaction(async (session) => {
      for await (const record of exportRecords((query) => session.query(query))) {
        if (record.kind === 'campaign' && record.identifier === '0') return record;
      }
      throw new Error('campaign 0 not stored');
    });
    await importRecords(database, [{ ...stored, campaignName: 'Operator name' }]);

    const points = await deploy(chain, 'TestPointsIncentive', [VENUE, '0x12345678', 3n, 100n]);
    await send(chain, deployed.core, 'TestBoostCore', 'addIncentiveToBoost', [0n, { isBase: false, instance: points, parameters: '0x' }]);
    await claimFor(chain, deployed.core, 0n, 2n, userAddress(40));
    await indexOnce(chain, deployed.core, database);

    const response = await app.inject({ url: `/campaigns/${id}` });
    expect(response.statusCode).toBe(200);
    const campaign = response.json<{ campaignName: string; incentives: { type: string; totalClaims?: string }[] }>();
    expect(campaign.campaignName).toBe('Operator name');
    expect(campaign.incentives.map((incentive) => incentive.type)).toEqual(['ERC20Incentive', 'ERC20VariableCriteriaIncentiveV2', 'PointsIncentive']);
    const list = await app.inject({ url: '/campaigns' });
    const item = list.json<{ campaigns: { id: string; incentiveCount: string }[] }>().campaigns.find((entry) => entry.id === id);
    expect(item?.incentiveCount).toBe('3');
    const claims = await queryRows<{ claimant: string; amount: string }>(
      database.db,
      sql`SELECT k.claimant, k.amount::text FROM claims AS k JOIN campaigns AS c ON c.key = k.campaign_key WHERE c.public_id = ${id} AND k.incentive_position = 2`,
    );
    expect(claims).toEqual([{ claimant: userAddress(40), amount: '3' }]);
  });
});
