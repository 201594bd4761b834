import { type Boost, StrategyType } from '@boostxyz/sdk';
import { sql } from 'drizzle-orm';
import { type Address, erc20Abi, type Hex, parseEther, parseUnits } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { queryRows } from '../../src/db/client.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { amountData, boostBasics } from '../../scripts/chain/boosts.js';
import { importRecords, indexOnce } from '../chain/chain-fixture.js';
import { CLAIMANTS, claim, startWorld, type World } from './world.js';

/**
 * What changes a campaign after its creation, on the protocol's own bytecode (the legacy core that
 * @boostxyz/sdk ships: it has clawbacks through the budget, but no top-up, which test/chain/ covers
 * on the stand-ins): clawbacks, a raffle draw, an AllowListIncentive adding its claimants to a list
 * another boost is gated by, and the claims around them, followed by the indexer from the
 * incentives' Claimed logs and the claims, and undone exactly when a reorganisation orphans the
 * blocks that made them. After each step every incentive's limit, remaining balance and claim count
 * equal what the chain holds.
 */

const lower = (address: string) => address.toLowerCase();
const NONE: Hex = '0x0000000000000000000000000000000000000000000000000000000000000000';
const CLAIMED = {
  type: 'event',
  name: 'Claimed',
  inputs: [
    { type: 'address', name: 'recipient', indexed: true },
    { type: 'bytes', name: 'data', indexed: false },
  ],
} as const;

describe('the indexer follows what changes after creation (SDK bytecode on anvil)', () => {
  let world: World;
  let database: TestDatabase;
  let app: App;
  let core: Address;
  let boosts: [Boost, Boost, Boost, Boost, Boost];

  beforeAll(async () => {
    world = await startWorld();
    core = world.protocol.core.assertValidAddress();
    const { core: sdkCore, token } = world.protocol;
    // 4: gated by the list boost 3's AllowListIncentive adds its claimants to, used as it is.
    const gated = await sdkCore.createBoost({
      ...boostBasics(world.protocol),
      maxParticipants: 0n,
      allowList: sdkCore.SimpleAllowList(world.membershipList, false),
      incentives: [sdkCore.ERC20Incentive({ asset: token, strategy: StrategyType.POOL, reward: parseEther('1'), limit: 2n, manager: world.protocol.budget.assertValidAddress() })],
    });
    boosts = [...world.boosts, gated] as typeof boosts;
    const [c1] = CLAIMANTS;
    await claim(world, boosts[0], 0, c1, NONE);
    await claim(world, boosts[1], 0, c1, world.protocol.sdk.ERC20VariableIncentive.prototype.buildClaimData(parseEther('3')));
    await claim(world, boosts[3], 1, c1, NONE);
    database = await createTestDatabase();
    // Prices, as an operator imports them: USD budgets and trending need them.
    await importRecords(database, [
      { kind: 'token', chainId: world.chain.chainId, address: lower(token), id: 'aaaaaaaa-0000-4000-8000-000000000001', name: 'Test', symbol: 'TEST', decimals: 18, imageUri: '', isWhitelisted: true, priceUsd: '2' },
      { kind: 'token', chainId: world.chain.chainId, address: lower(world.protocol.usd), id: 'aaaaaaaa-0000-4000-8000-000000000002', name: 'Test USD', symbol: 'TUSD', decimals: 6, imageUri: '', isWhitelisted: true, priceUsd: '1' },
    ]);
    await indexOnce(world.chain, core, database);
    app = await buildTestApp(database);
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await database?.close();
    await world?.chain.stop();
  });

  const call = async (instance: unknown, getter: string): Promise<bigint> => {
    const method = (instance as Record<string, () => Promise<unknown>>)[getter]!;
    return BigInt((await method.call(instance)) as bigint);
  };
  const balanceOf = (asset: string, holder: Address) =>
    world.chain.public.readContract({ address: asset as Address, abi: erc20Abi, functionName: 'balanceOf', args: [holder] });

  /** Every incentive of every boost as served, against the chain's getters and balances. */
  async function expectServedAsOnChain() {
    for (const boost of boosts) {
      const response = await app.inject({ url: `/campaigns/${world.chain.chainId}:${lower(core)}:${boost.id}` });
      expect(response.statusCode).toBe(200);
      const served = response.json<{ incentives: Record<string, string>[] }>().incentives;
      for (const [index, incentive] of boost.incentives.entries()) {
        const field = served[index]!;
        const label = `boost ${boost.id} incentive ${index} (${field.type})`;
        if (field.type === 'ERC20Incentive') {
          expect(field.limit, `${label} limit: claims left`).toBe(((await call(incentive, 'limit')) - (await call(incentive, 'claims'))).toString());
        } else if ('limit' in field) {
          expect(field.limit, `${label} limit`).toBe((await call(incentive, 'limit')).toString());
        }
        if (field.type === 'CGDAIncentive') expect(field.totalBudget, `${label} totalBudget`).toBe((await call(incentive, 'totalBudget')).toString());
        if (field.remainingBalance !== undefined) {
          expect(field.remainingBalance, `${label} remainingBalance`).toBe((await balanceOf(field.asset!, incentive.assertValidAddress())).toString());
          expect(field.totalClaims, `${label} totalClaims`).toBe((await call(incentive, 'claims')).toString());
        }
      }
    }
  }

  /**
   * Each campaign's budgets against the chain: what each incentive paying a token holds (balanceOf)
   * and paid (its Claimed logs to anyone but the budget, which a clawback pays), as the detail's
   * availableBudgetUsd and the reward kit's totalBudget and rewardsDistributed (of the first paying
   * incentive's token) sum them.
   */
  async function expectBudgetsAsOnChain() {
    const prices: Record<string, { usd: number; decimals: number }> = {
      [lower(world.protocol.token)]: { usd: 2, decimals: 18 },
      [lower(world.protocol.usd)]: { usd: 1, decimals: 6 },
    };
    const budget = lower(world.protocol.budget.assertValidAddress());
    const rewards = (await app.inject({ url: '/reward-kit/campaigns?tokenWhitelist=false&pageSize=100&sortBy=recently-deployed' })).json<{
      campaigns: { id: string; totalBudget: string; rewardsDistributed: string }[];
    }>().campaigns;
    for (const boost of boosts) {
      const id = `${world.chain.chainId}:${lower(core)}:${boost.id}`;
      const detail = (await app.inject({ url: `/campaigns/${id}` })).json<{ availableBudgetUsd: string | null; incentives: Record<string, string>[] }>();
      // USD scaled by 10^18, exact; the service rounds the sum to cents.
      let available18 = 0n;
      let rewardAsset: string | null = null;
      let totalBudget = 0n;
      let distributed = 0n;
      for (const [index, incentive] of boost.incentives.entries()) {
        const asset = detail.incentives[index]!.asset;
        if (asset === undefined || detail.incentives[index]!.type === 'PointsIncentive') continue;
        const address = incentive.assertValidAddress();
        const held = await balanceOf(asset, address);
        const logs = await world.chain.public.getLogs({ address, event: CLAIMED, fromBlock: 0n });
        const paid = logs
          .filter((log) => lower(log.args.recipient!) !== budget)
          .reduce((sum, log) => sum + BigInt(`0x${log.args.data!.slice(2 + 80, 2 + 144)}`), 0n);
        const price = prices[lower(asset)]!;
        available18 += held * BigInt(price.usd) * 10n ** BigInt(18 - price.decimals);
        rewardAsset ??= lower(asset);
        if (lower(asset) !== rewardAsset) continue;
        totalBudget += held + paid;
        distributed += paid;
      }
      const cents = (available18 * 100n + 5n * 10n ** 17n) / 10n ** 18n;
      expect(detail.availableBudgetUsd, `${id} availableBudgetUsd`).toBe(`${cents / 100n}.${(cents % 100n).toString().padStart(2, '0')}`);
      const entry = rewards.find((reward) => reward.id === id);
      if (entry) expect({ totalBudget: entry.totalBudget, rewardsDistributed: entry.rewardsDistributed }, id).toEqual({ totalBudget: totalBudget.toString(), rewardsDistributed: distributed.toString() });
    }
    // Every campaign with budget left is a reward the kit lists.
    expect(rewards.length).toBeGreaterThanOrEqual(4);
  }

  /** The budget's manager takes `amount` back out of a boost's incentive, through BoostCore. */
  async function clawback(boost: Boost, incentiveId: number, amount: bigint) {
    const incentive = boost.incentives[incentiveId] as unknown as { buildClawbackData(amount: bigint): Hex };
    await world.protocol.budget.clawbackFromTarget(core, incentive.buildClawbackData(amount), boost.id, incentiveId);
  }

  const claimsOf = () =>
    queryRows<{ claimant: string; amount: string; tx_hash: string }>(
      database.db,
      sql`SELECT claimant, amount::text, tx_hash FROM claims ORDER BY claimed_at, tx_hash, log_index`,
    );

  it('serves the limits and balances the chain has after clawbacks of each kind', async () => {
    await expectServedAsOnChain();
    // ERC20 POOL: two rewards back (limit 10 -> 8); variable: 5 tokens of its budget; CGDA: its balance only.
    await clawback(boosts[0], 0, parseEther('2'));
    await clawback(boosts[1], 0, parseEther('5'));
    await clawback(boosts[3], 1, parseEther('1'));
    await indexOnce(world.chain, core, database);
    await expectServedAsOnChain();
    await expectBudgetsAsOnChain();
    const erc20 = (await app.inject({ url: `/campaigns/${world.chain.chainId}:${lower(core)}:0` })).json<{ incentives: Record<string, string>[] }>();
    expect(erc20.incentives[0]).toMatchObject({ limit: '7', remainingBalance: parseEther('7').toString(), totalClaims: '1' });
    // A clawback is not a claim.
    expect(await claimsOf()).toHaveLength(3);
  });

  it("pays the raffle's prize to its winner (a draw: no claim), and counts the entries as claims() does", async () => {
    const [c1, c2] = CLAIMANTS;
    await claim(world, boosts[0], 1, c1, NONE);
    await claim(world, boosts[0], 1, c2, NONE);
    const raffle = boosts[0].incentives[1] as unknown as { drawRaffle(): Promise<void>; assertValidAddress(): Address };
    // On anvil the legacy bytecode's draw reverts (TransferFailed) for some blocks' randomness
    // (prevrandao + timestamp pick the winner); the manager draws again in the next block.
    for (let attempt = 1; ; attempt++) {
      try {
        await raffle.drawRaffle();
        break;
      } catch (error) {
        if (attempt === 5 || !String(error).includes('0x90b8ec18')) throw error;
        await world.chain.mine(1);
      }
    }
    await indexOnce(world.chain, core, database);
    await expectServedAsOnChain();
    await expectBudgetsAsOnChain();
    const [draw] = await world.chain.public.getLogs({ address: raffle.assertValidAddress(), event: CLAIMED, fromBlock: 0n });
    const winner = lower(draw!.args.recipient!);
    expect([lower(c1.address), lower(c2.address)]).toContain(winner);
    const payout = (await claimsOf()).filter((row) => row.tx_hash === draw!.transactionHash);
    expect(payout).toEqual([{ claimant: winner, amount: parseEther('5').toString(), tx_hash: draw!.transactionHash }]);
    const served = (await app.inject({ url: `/campaigns/${world.chain.chainId}:${lower(core)}:0` })).json<{ incentives: Record<string, string>[] }>();
    expect(served.incentives[1]).toMatchObject({ totalClaims: '2', limit: '1', totalAmountClaimed: parseEther('5').toString(), remainingBalance: '0' });
    // The draw is no claim: the activity feed lists and counts the BoostClaimed claims alone.
    const activity = (await app.inject({ url: `/campaigns/${world.chain.chainId}:${lower(core)}:0/activity?pageSize=100` })).json<{
      totalActivityCount: number;
      activityEvents: { txHash: string }[];
    }>();
    const claimed = (await call(boosts[0].incentives[0], 'claims')) + (await call(boosts[0].incentives[1], 'claims'));
    expect(activity.totalActivityCount).toBe(Number(claimed));
    expect(activity.activityEvents).toHaveLength(Number(claimed));
    expect(activity.activityEvents.map((event) => event.txHash)).not.toContain(draw!.transactionHash);
  });

  it("adds an AllowListIncentive's claimants to the list it grants, as the list has them", async () => {
    // Boost 3 is gated by the shared list of the first and third claimant.
    const [c1, , c3] = CLAIMANTS;
    const gated = `/campaigns/${world.chain.chainId}:${lower(core)}:4`;
    expect((await app.inject({ url: gated })).json<{ allowList: { addresses: string[] } }>().allowList.addresses).toEqual([]);
    await claim(world, boosts[3], 2, c1, NONE);
    await claim(world, boosts[3], 2, c3, NONE);
    await indexOnce(world.chain, core, database);
    const list = world.protocol.core.SimpleAllowList(world.membershipList, false);
    const members = [];
    for (const account of CLAIMANTS) if (await list.isAllowed(account.address)) members.push(lower(account.address));
    expect(members).toHaveLength(2);
    expect((await app.inject({ url: gated })).json<{ allowList: { addresses: string[] } }>().allowList.addresses).toEqual(members.sort());
  });

  it('undoes a clawback and a claim that a reorganisation orphans, and follows the new branch', async () => {
    const before = await claimsOf();
    const snapshot = await world.chain.snapshot();
    const head = await world.chain.public.getBlockNumber();
    const [, c2, c3] = CLAIMANTS;
    // The branch to be orphaned: another clawback, a claim of the same incentive, and a new boost.
    await clawback(boosts[0], 0, parseEther('3'));
    await claim(world, boosts[0], 0, c2, NONE);
    const { core: sdkCore, token } = world.protocol;
    const orphan = await sdkCore.createBoost({
      ...boostBasics(world.protocol),
      maxParticipants: 0n,
      allowList: sdkCore.OpenAllowList(),
      incentives: [sdkCore.ERC20Incentive({ asset: token, strategy: StrategyType.POOL, reward: parseEther('1'), limit: 1n, manager: world.protocol.budget.assertValidAddress() })],
    });
    await indexOnce(world.chain, core, database);
    await expectServedAsOnChain();
    expect(await claimsOf()).toHaveLength(before.length + 1);
    const orphanUrl = `/campaigns/${world.chain.chainId}:${lower(core)}:${orphan.id}`;
    expect((await app.inject({ url: orphanUrl })).statusCode).toBe(200);

    // The other branch, from the same block: a claim of another incentive, and longer.
    await world.chain.revert(snapshot);
    expect(await world.chain.public.getBlockNumber()).toBe(head);
    await claim(world, boosts[1], 0, c3, world.protocol.sdk.ERC20VariableIncentive.prototype.buildClaimData(parseEther('2')));
    await world.chain.mine(5);
    await indexOnce(world.chain, core, database);
    await expectServedAsOnChain();
    // The orphaned boost and claim are gone, the new branch's claim is there.
    expect((await app.inject({ url: orphanUrl })).statusCode).toBe(404);
    expect((await app.inject({ url: '/campaigns?tokenWhitelist=false' })).json<{ totalCampaigns: number }>().totalCampaigns).toBe(boosts.length);
    const claims = await claimsOf();
    const added = claims.filter((row) => !before.some((old) => old.tx_hash === row.tx_hash));
    expect(claims).toHaveLength(before.length + 1);
    expect(added).toMatchObject([{ claimant: lower(c3.address), amount: parseEther('2').toString() }]);
    await expectBudgetsAsOnChain();
    for (const row of claims) {
      const receipt = await world.chain.public.getTransactionReceipt({ hash: row.tx_hash as Hex });
      expect(receipt.status).toBe('success');
    }
  });

  it("reads again the balance of an incentive whose claim a reorganisation orphans, read in the same range as a block it keeps", async () => {
    const before = await claimsOf();
    const [, , c3] = CLAIMANTS;
    // Block F (kept): a clawback, so the range that indexes it rewrites boost 0 there, reading its
    // incentives at the range's end. Block F+1 (orphaned): a claim of the same incentive.
    await clawback(boosts[0], 0, parseEther('1'));
    const snapshot = await world.chain.snapshot();
    const head = await world.chain.public.getBlockNumber();
    await claim(world, boosts[0], 0, c3, NONE);
    await indexOnce(world.chain, core, database);
    await expectServedAsOnChain();
    expect(await claimsOf()).toHaveLength(before.length + 1);

    // The other branch from F has no log of that incentive.
    await world.chain.revert(snapshot);
    expect(await world.chain.public.getBlockNumber()).toBe(head);
    await world.chain.mine(3);
    await indexOnce(world.chain, core, database);
    expect(await claimsOf()).toEqual(before);
    await expectServedAsOnChain();
    await expectBudgetsAsOnChain();
  });

  it('reads again the balance of a boost created in the range whose clawback a reorganisation orphans', async () => {
    const { core: sdkCore, token } = world.protocol;
    // Block F (kept): a new boost. Block F+1 (orphaned): a clawback from it. One range indexes both,
    // reading the new boost's incentive after the clawback.
    const fresh = await sdkCore.createBoost({
      ...boostBasics(world.protocol),
      maxParticipants: 0n,
      allowList: sdkCore.OpenAllowList(),
      incentives: [sdkCore.ERC20Incentive({ asset: token, strategy: StrategyType.POOL, reward: parseEther('1'), limit: 4n, manager: world.protocol.budget.assertValidAddress() })],
    });
    const url = `/campaigns/${world.chain.chainId}:${lower(core)}:${fresh.id}`;
    const snapshot = await world.chain.snapshot();
    const head = await world.chain.public.getBlockNumber();
    await clawback(fresh, 0, parseEther('1'));
    await indexOnce(world.chain, core, database);
    const held = () => balanceOf(token, fresh.incentives[0]!.assertValidAddress());
    const served = async () => (await app.inject({ url })).json<{ incentives: Record<string, string>[] }>().incentives[0]!;
    expect((await served()).remainingBalance).toBe((await held()).toString());

    await world.chain.revert(snapshot);
    expect(await world.chain.public.getBlockNumber()).toBe(head);
    await world.chain.mine(3);
    await indexOnce(world.chain, core, database);
    expect((await served()).remainingBalance).toBe(parseEther('4').toString());
    expect((await served()).remainingBalance).toBe((await held()).toString());
    await expectBudgetsAsOnChain();
  });

  it('undoes what a revert to a shorter chain orphans (the checkpoint block is gone)', async () => {
    const before = await claimsOf();
    const snapshot = await world.chain.snapshot();
    await clawback(boosts[1], 0, parseEther('1'));
    await claim(world, boosts[2], 0, CLAIMANTS[2], amountData(parseUnits('5', 6)));
    await world.chain.mine(5);
    await indexOnce(world.chain, core, database);
    expect(await claimsOf()).toHaveLength(before.length + 1);
    await world.chain.revert(snapshot);
    await indexOnce(world.chain, core, database);
    await expectServedAsOnChain();
    await expectBudgetsAsOnChain();
    expect(await claimsOf()).toEqual(before);
  });
});
