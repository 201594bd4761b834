import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { memorySource } from '../../src/ingest/memory-source.js';
import type { DeletionRecord, UpsertRecord } from '../../src/ingest/records.js';
import { ingest } from '../../src/ingest/write.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { type ReceivedEvent, SseClient } from '../helpers/sse.js';
import { address, erc20Incentive, insertApiToken, insertCampaign, insertContract, insertToken, insertUser } from '../helpers/factories.js';

const NOW = new Date('2026-06-01T12:00:00.000Z');
const MINUTE = 60_000;
const ago = (ms: number) => new Date(NOW.getTime() - ms).toISOString();
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

/**
 * A RAFFLE's draw (its payout to the winner, a Claimed without a BoostClaimed) is written as a row
 * of the winner through the import path, as the indexer writes it: its amount and USD count in
 * every total and volume, but it is not a claim. Its entries (claims of amount 0) are the claims:
 * the incentive's totalClaims and limit, the activity feed, trending's claimCount, explore's
 * totalClaims, the reward kit's totalClaims and the profile's last claim count only them.
 */
describe('a raffle draw is no claim', () => {
  let database: TestDatabase;
  let app: App;
  let clock = NOW;
  let raffle: { key: number; publicId: string };
  let other: { key: number; publicId: string };
  let pool: { key: number; publicId: string };
  let contract: string;
  const winner = address(0xa11ce);
  const loser = address(0xb0b);
  let winnerToken: string;
  let stream: SseClient | undefined;

  const claim = (campaign: string, n: number, claimant: string, amount: string, usdValue: string, claimedAt: string) => ({
    kind: 'claim' as const,
    chainId: 8453,
    txHash: hash(n),
    logIndex: 0,
    campaign,
    incentivePosition: 0,
    claimant,
    amount,
    usdValue,
    ethValueWei: usdValue === '0' ? '0' : '2000000000000000',
    claimedAt,
    blockNumber: n,
  });
  const write = (records: (UpsertRecord | DeletionRecord)[]) => ingest(database, memorySource(records as UpsertRecord[]), { derived: 'live' });

  beforeAll(async () => {
    database = await createTestDatabase();
    const { db } = database;
    const usdc = await insertToken(db, { symbol: 'USDC', decimals: 6, priceUsd: '1', isWhitelisted: true });
    contract = (await insertContract(db, { chainId: 8453, name: 'Raffle Target' })).address;
    raffle = await insertCampaign(db, {
      // A pool beside the raffle keeps the campaign active (trending lists active ones) after the draw spends the prize.
      incentives: [{ type: 'ERC20Incentive', params: { asset: usdc.address, strategy: 1, reward: '5000000', limit: '10' } }, erc20Incentive(usdc.address)],
      steps: [{ targetContract: contract }],
    });
    // Claimed after the claim windows loaded: another raffle, and a pool campaign whose claim is one.
    other = await insertCampaign(db, {
      incentives: [{ type: 'ERC20Incentive', params: { asset: usdc.address, strategy: 1, reward: '7000000', limit: '3' } }, erc20Incentive(usdc.address)],
      steps: [{ targetContract: contract }],
    });
    pool = await insertCampaign(db, { incentives: [erc20Incentive(usdc.address)], steps: [{ targetContract: contract }] });
    // Two entries, then the draw pays the winner the prize.
    await write([
      claim(raffle.publicId, 1, winner, '0', '0', ago(30 * MINUTE)),
      claim(raffle.publicId, 2, loser, '0', '0', ago(20 * MINUTE)),
      claim(raffle.publicId, 3, winner, '5000000', '5', ago(10 * MINUTE)),
    ]);
    const user = await insertUser(db, { address: winner });
    winnerToken = (await insertApiToken(db, user.id)).token;
    app = await buildTestApp(database, { EVENTS_POLL_MS: '20' }, undefined, { clock: () => clock });
  });
  afterAll(async () => {
    await stream?.close();
    await app?.close();
    await database?.close();
  });

  async function get<T>(url: string, headers: Record<string, string> = {}): Promise<T> {
    const response = await app.inject({ url, headers });
    expect(response.statusCode, url).toBe(200);
    return response.json<T>();
  }

  /** Everything that counts claims, and the USD they carry, as served now. */
  async function served(campaign: { publicId: string }) {
    const detail = await get<{ incentives: Record<string, unknown>[] }>(`/campaigns/${campaign.publicId}`);
    const activity = await get<{ totalActivityCount: number; activityEvents: { txHash: string }[] }>(`/campaigns/${campaign.publicId}/activity`);
    const { trendingCampaigns: trending } = await get<{ trendingCampaigns: { id: string; claimCount: number; usdDistributed1Hr: number }[] }>(
      '/reward-kit/trending?pageSize=100',
    );
    const contracts = await get<{ address: string; stats: { totalClaims: number; totalAmountClaimedUsd: number } }[]>('/explore/contracts?timePeriod=24h');
    const reward = await get<{ totalClaims: number; claims: { txHash: string }[]; txHash?: string }>(
      `/reward-kit/campaigns/${campaign.publicId}?address=${winner}`,
    );
    const entry = trending.find((item) => item.id === campaign.publicId);
    return {
      incentive: (({ limit, totalClaims, totalAmountClaimed, remainingBalance }) => ({ limit, totalClaims, totalAmountClaimed, remainingBalance }))(detail.incentives[0]!),
      activity: { total: activity.totalActivityCount, txHashes: activity.activityEvents.map((event) => event.txHash) },
      trending: entry && { claimCount: entry.claimCount, usd: entry.usdDistributed1Hr },
      contract: contracts.find((item) => item.address === contract)?.stats,
      reward: { totalClaims: reward.totalClaims, txHashes: reward.claims.map((item) => item.txHash), winnerTx: reward.txHash },
    };
  }

  it('counts the entries as claims and the draw in the amounts and USD (the claim windows loaded)', async () => {
    expect(await served(raffle)).toEqual({
      incentive: { limit: '8', totalClaims: '2', totalAmountClaimed: '5000000', remainingBalance: '0' },
      activity: { total: 2, txHashes: [hash(2), hash(1)] },
      trending: { claimCount: 2, usd: 5 },
      contract: { campaignCount: 3, totalClaims: 2, totalAmountClaimedUsd: 5 },
      reward: { totalClaims: 2, txHashes: [hash(2), hash(1)], winnerTx: hash(1) },
    });
  });

  it("gives the winner the draw's ETH, and the entry as the last claim", async () => {
    const profile = await get<{ ethEarned: string; streak: { lastCompletionTime: string | null } }>('/users/profile', {
      authorization: `Bearer ${winnerToken}`,
    });
    expect(profile.ethEarned).toBe('2000000000000000');
    expect(profile.streak.lastCompletionTime).toBe(ago(30 * MINUTE));
  });

  it('follows a draw written, then removed, after the claim windows loaded (the claim feed)', async () => {
    clock = new Date(NOW.getTime() + MINUTE);
    await write([
      claim(other.publicId, 11, loser, '0', '0', ago(5 * MINUTE)),
      claim(other.publicId, 12, loser, '7000000', '7', ago(4 * MINUTE)),
      claim(pool.publicId, 13, winner, '1000000', '1', ago(3 * MINUTE)),
    ]);
    expect(await served(other)).toMatchObject({
      incentive: { limit: '2', totalClaims: '1', totalAmountClaimed: '7000000', remainingBalance: '0' },
      activity: { total: 1, txHashes: [hash(11)] },
      trending: { claimCount: 1, usd: 7 },
      // The first raffle's two entries and 5 USD, this one's entry and 7, the pool's claim and 1.
      contract: { totalClaims: 4, totalAmountClaimedUsd: 13 },
      reward: { totalClaims: 1, txHashes: [hash(11)] },
    });

    await write([{ kind: 'claim', deleted: true, chainId: 8453, txHash: hash(12), logIndex: 0 }]);
    expect(await served(other)).toMatchObject({
      incentive: { limit: '2', totalClaims: '1', totalAmountClaimed: '0', remainingBalance: '7000000' },
      activity: { total: 1 },
      contract: { totalClaims: 4, totalAmountClaimedUsd: 6 },
    });
  });

  it('streams the draw as draw.written and draw.removed, never as a claim event', async () => {
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    stream = new SseClient(`${base}/events?campaignId=${other.publicId}`);
    expect(await stream.open()).toBe(200);
    const ofClaims = (events: ReceivedEvent[]) => events.filter((event) => /^(claim|draw)\./.test(event.event));
    await write([claim(other.publicId, 12, loser, '7000000', '7', ago(4 * MINUTE))]);
    await write([{ kind: 'claim', deleted: true, chainId: 8453, txHash: hash(12), logIndex: 0 }]);
    await stream.until((events) => ofClaims(events).length === 2);
    const [written, removed] = ofClaims(stream.events);
    expect([written!.event, removed!.event]).toEqual(['draw.written', 'draw.removed']);
    expect(JSON.parse(written!.data)).toMatchObject({ campaignId: other.publicId, claimant: loser, amount: '7000000', usdValue: 7, txHash: hash(12) });
  });
});
