import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { address, insertCampaign, insertClaim, insertContract } from '../helpers/factories.js';
import { expectToMatchSchema } from '../helpers/schema.js';

const NOW = new Date('2026-06-01T12:00:00.000Z');
const HOUR = 3_600_000;
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const ALICE = address(0xa11ce);

interface ContractBody {
  chainId: number;
  address: string;
  name: string;
  stats: { campaignCount: number; totalClaims: number; totalAmountClaimedUsd: number };
}

describe('GET /explore/contracts', () => {
  let database: TestDatabase;
  let app: App;
  const contracts: Record<string, string> = {};

  beforeAll(async () => {
    database = await createTestDatabase();
    const { db } = database;
    const named = async (name: string, chainId: number) => {
      const contract = await insertContract(db, { chainId, name });
      contracts[name] = contract.address;
      return contract;
    };
    const router = await named('Router', 8453);
    const minter = await named('Minter', 8453);
    const bridge = await named('Bridge', 10);
    await named('Untargeted', 8453);

    // Router: two campaigns (one by Alice), busy in the last 6 hours.
    const r1 = await insertCampaign(db, { blockTimestamp: 1000, steps: [{ targetContract: router.address }], creator: ALICE });
    const r2 = await insertCampaign(db, { blockTimestamp: 2000, steps: [{ targetContract: router.address }] });
    // Minter: one campaign, one big claim two days ago, also targeting the router in a second step.
    const m1 = await insertCampaign(db, {
      blockTimestamp: 3000,
      steps: [{ targetContract: minter.address }, { targetContract: router.address }],
    });
    // Bridge on another chain: the newest campaign, a claim yesterday.
    const b1 = await insertCampaign(db, { chainId: 10, blockTimestamp: 4000, steps: [{ targetContract: bridge.address, chainId: 10 }] });
    // A campaign targeting an unnamed contract does not make it a listed contract.
    await insertCampaign(db, { steps: [{ targetContract: address(0xdead) }] });

    await insertClaim(db, { campaignKey: r1.key, usdValue: '1', claimedAt: ago(HOUR) });
    await insertClaim(db, { campaignKey: r1.key, usdValue: '2', claimedAt: ago(2 * HOUR) });
    await insertClaim(db, { campaignKey: r2.key, usdValue: '3', claimedAt: ago(5 * HOUR) });
    await insertClaim(db, { campaignKey: m1.key, usdValue: '100', claimedAt: ago(48 * HOUR) });
    await insertClaim(db, { campaignKey: b1.key, usdValue: '7', claimedAt: ago(20 * HOUR) });
    await insertClaim(db, { campaignKey: b1.key, usdValue: '7', claimedAt: ago(8 * 24 * HOUR) }); // outside every period

    app = await buildTestApp(database, {}, undefined, { clock: () => NOW });
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  const explore = async (query = '') => {
    const response = await app.inject(`/explore/contracts${query ? `?${query}` : ''}`);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json<ContractBody[]>();
    expectToMatchSchema(body, 'ContractList');
    return body;
  };
  const names = async (query = '') => (await explore(query)).map((contract) => contract.name);

  it('lists the targeted named contracts by claims in the last 7 days, with their stats', async () => {
    expect(await explore()).toEqual([
      { chainId: 8453, address: contracts.Router, name: 'Router', stats: { campaignCount: 3, totalClaims: 4, totalAmountClaimedUsd: 106 } },
      // One claim each: the tie goes to the lower chain id.
      { chainId: 10, address: contracts.Bridge, name: 'Bridge', stats: { campaignCount: 1, totalClaims: 1, totalAmountClaimedUsd: 7 } },
      { chainId: 8453, address: contracts.Minter, name: 'Minter', stats: { campaignCount: 1, totalClaims: 1, totalAmountClaimedUsd: 100 } },
    ]);
  });

  it('counts claims inside the time period only', async () => {
    const stats = async (period: string) =>
      Object.fromEntries((await explore(`timePeriod=${period}`)).map((contract) => [contract.name, contract.stats.totalClaims]));
    expect(await stats('6h')).toEqual({ Router: 3, Minter: 0, Bridge: 0 });
    expect(await stats('24h')).toEqual({ Router: 3, Minter: 0, Bridge: 1 });
    expect(await stats('7d')).toEqual({ Router: 4, Minter: 1, Bridge: 1 });
  });

  it('sorts by completions, spend or the newest campaign, ties on chain id then address', async () => {
    expect(await names('timePeriod=24h&sortBy=most-completions')).toEqual(['Router', 'Bridge', 'Minter']);
    expect(await names('timePeriod=24h&sortBy=total-spend')).toEqual(['Bridge', 'Router', 'Minter']);
    expect(await names('sortBy=recently-deployed')).toEqual(['Bridge', 'Router', 'Minter']);
    // Minter and Bridge tie at zero in 6h: chain 10 before chain 8453.
    expect(await names('timePeriod=6h')).toEqual(['Router', 'Bridge', 'Minter']);
  });

  it('filters by the chains of the actions and by the campaigns a user deployed', async () => {
    expect(await names('actionChainIds=10')).toEqual(['Bridge']);
    expect(await names('actionChainIds=10,%208453')).toEqual(['Router', 'Bridge', 'Minter']);
    expect(await names('actionChainIds=1')).toEqual([]);
    expect(await explore(`userAddress=${ALICE.toUpperCase().replace('0X', '0x')}`)).toEqual([
      { chainId: 8453, address: contracts.Router, name: 'Router', stats: { campaignCount: 1, totalClaims: 2, totalAmountClaimedUsd: 3 } },
    ]);
  });

  it('pages', async () => {
    expect(await names('pageSize=1&page=3')).toEqual(['Minter']);
    expect(await names('pageSize=0')).toEqual([]);
    expect(await names('page=9')).toEqual([]);
  });

  it('lists a contract named after the snapshot, once the snapshot is rebuilt (within one refresh)', async () => {
    expect(await names()).not.toContain('Dead');
    // A campaign already targets 0x…dead; only the registry learns its name.
    await insertContract(database.db, { chainId: 8453, address: address(0xdead), name: 'Dead' });
    // The first request after the change starts the rebuild in the background and answers from the old snapshot.
    for (let attempt = 0; attempt < 50 && !(await names()).includes('Dead'); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await names()).toContain('Dead');
  });

  it.each([
    ['sortBy=newest', 'sortBy'],
    ['timePeriod=1h', 'timePeriod'],
    ['actionChainIds=base', 'actionChainIds entry 1'],
    ['actionChainIds=1,-2', 'actionChainIds entry 2'],
    ['actionChainIds=9999999999', 'actionChainIds entry 1'],
    ['userAddress=0x12', 'userAddress'],
    ['pageSize=101', 'pageSize'],
    ['page=1e2', 'page'],
    ['chainId=1', "unknown query parameter 'chainId'"],
  ])('?%s is a 400 naming %s', async (query, named) => {
    const response = await app.inject(`/explore/contracts?${query}`);
    expect(response.statusCode).toBe(400);
    expect(Object.keys(response.json<object>())).toEqual(['error']);
    expect(response.json<{ error: string }>().error).toContain(named);
  });
});
