import { sql } from 'drizzle-orm';
import { type Address, erc20Abi, parseEther, parseUnits } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { queryRows } from '../../src/db/client.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { indexOnce } from '../chain/chain-fixture.js';
import { databaseState } from '../chain/database-state.js';
import { CAMPAIGN_OWNER, CLAIMANTS, claim, CREATOR, RELAYER, startWorld, type World } from './world.js';

/**
 * The indexer against the Boost protocol's own bytecode (the legacy core generation that
 * @boostxyz/sdk ships): campaigns made and claimed through the SDK, indexed, and every field the
 * API serves compared with what the SDK and the chain say.
 */

const lower = (address: string) => address.toLowerCase();

describe('the indexer on the real protocol (SDK bytecode on anvil)', () => {
  let world: World;
  let database: TestDatabase;
  let app: App;
  let id: (boost: number) => string;
  let core: Address;

  beforeAll(async () => {
    world = await startWorld();
    core = world.protocol.core.assertValidAddress();
    id = (boost) => `${world.chain.chainId}:${lower(core)}:${boost}`;
    const [b0, b1, b2, b3] = world.boosts as [World['boosts'][number], World['boosts'][number], World['boosts'][number], World['boosts'][number]];
    const [c1, c2, c3] = CLAIMANTS;
    const none = '0x0000000000000000000000000000000000000000000000000000000000000000';
    await claim(world, b0, 0, c1, none);
    await claim(world, b0, 0, c2, none, 'relayer');
    for (const claimant of CLAIMANTS) await claim(world, b0, 1, claimant, none);
    await claim(world, b1, 0, c1, world.protocol.sdk.ERC20VariableIncentive.prototype.buildClaimData(parseEther('3')));
    await claim(world, b1, 1, c2, world.protocol.sdk.ERC20VariableIncentive.prototype.buildClaimData(parseEther('6')));
    await claim(world, b2, 0, c1, world.protocol.sdk.ERC20VariableIncentive.prototype.buildClaimData(parseUnits('10', 6)));
    await claim(world, b2, 1, c2, world.protocol.sdk.ERC20VariableIncentive.prototype.buildClaimData(parseUnits('20', 6)));
    await claim(world, b3, 0, c3, none);
    await claim(world, b3, 1, c1, none);
    await claim(world, b3, 2, c1, none);
    database = await createTestDatabase();
    await indexOnce(world.chain, core, database);
    app = await buildTestApp(database);
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await database?.close();
    await world?.chain.stop();
  });

  /** A getter of an SDK component instance, by name. */
  const read = async (instance: unknown, getter: string): Promise<unknown> => {
    const method = (instance as Record<string, (() => Promise<unknown>) | undefined>)[getter];
    if (!method) throw new Error(`the SDK's ${(instance as object).constructor.name} has no ${getter}()`);
    return method.call(instance);
  };
  const detail = async (boost: number) => {
    const response = await app.inject({ url: `/campaigns/${id(boost)}` });
    expect(response.statusCode).toBe(200);
    return response.json<Record<string, unknown> & { incentives: Record<string, unknown>[]; allowList: Record<string, unknown> | null }>();
  };
  const balanceOf = (asset: unknown, holder: string) =>
    world.chain.public.readContract({ address: asset as Address, abi: erc20Abi, functionName: 'balanceOf', args: [holder as Address] });

  it('serves every boost as getBoost() has it, with its creator and owner', async () => {
    const list = await app.inject({ url: '/campaigns?tokenWhitelist=false' });
    expect(list.statusCode).toBe(200);
    const items = new Map(list.json<{ campaigns: Record<string, unknown>[] }>().campaigns.map((item) => [item.id, item]));
    expect(items.size).toBe(world.boosts.length);
    for (const boost of world.boosts) {
      const onChain = await world.protocol.core.readBoost(boost.id);
      const campaign = items.get(id(Number(boost.id)))!;
      expect(campaign).toMatchObject({
        owner: lower(onChain.owner),
        budget: lower(onChain.budget),
        validator: lower(onChain.validator),
        action: lower(onChain.action),
        protocolFee: onChain.protocolFee.toString(),
        maxParticipants: onChain.maxParticipants.toString(),
        chainId: world.chain.chainId,
      });
      expect((campaign.allowList as { contractAddress: string }).contractAddress).toBe(lower(onChain.allowList));
    }
    // Created by the deployer, owned by someone else.
    expect((await detail(0)).owner).toBe(lower(CAMPAIGN_OWNER.address));
    const [row] = await queryRows<{ creator: string }>(database.db, sql`SELECT creator FROM campaigns WHERE public_id = ${id(0)}`);
    expect(row!.creator).toBe(lower(CREATOR.address));
  });

  it('serves each incentive variant with its getters, its claims and its balance on chain', async () => {
    // Each variant's served fields and the SDK getter each is read with.
    const common: [string, string][] = [
      ['asset', 'asset'],
      ['reward', 'reward'],
      ['limit', 'limit'],
    ];
    const getters: Record<string, [string, string][]> = {
      // ERC20Incentive's `limit` is served as the claims left (the chain's limit() minus claims()): compared below.
      ERC20Incentive: [
        ['asset', 'asset'],
        ['reward', 'reward'],
        ['strategy', 'strategy'],
      ],
      ERC20VariableIncentive: common,
      ERC20VariableCriteriaIncentive: [...common, ['maxReward', 'getMaxReward']],
      ERC20PeggedIncentive: [...common, ['peg', 'peg']],
      ERC20PeggedVariableCriteriaIncentive: [...common, ['peg', 'peg'], ['maxReward', 'getMaxReward']],
      PointsIncentive: [
        ['venue', 'venue'],
        ['selector', 'selector'],
        ['reward', 'reward'],
        ['limit', 'limit'],
      ],
      CGDAIncentive: [
        ['asset', 'asset'],
        ['totalBudget', 'totalBudget'],
      ],
      AllowListIncentive: [
        ['allowListAddress', 'allowList'],
        ['limit', 'limit'],
      ],
    };
    const seen = new Set<string>();
    for (const boost of world.boosts) {
      const campaign = await detail(Number(boost.id));
      expect(campaign.incentives).toHaveLength(boost.incentives.length);
      for (const [index, incentive] of boost.incentives.entries()) {
        const served = campaign.incentives[index]!;
        seen.add(served.type as string);
        for (const [field, getter] of getters[served.type as string]!) {
          let value = await read(incentive, getter);
          // The SDK hands back a component (an AllowList) where the getter returns its address.
          if (typeof value === 'object' && value !== null && 'address' in value) value = value.address;
          const expected = typeof value === 'string' ? lower(value) : typeof value === 'number' ? value : String(value);
          expect(served[field], `${served.type as string}.${field}`).toBe(expected);
        }
        if (served.type === 'ERC20Incentive') {
          const left = (await read(incentive, 'limit')) as bigint;
          expect(served.limit, 'ERC20Incentive.limit (claims left)').toBe((left - ((await read(incentive, 'claims')) as bigint)).toString());
        }
        if (served.remainingBalance !== undefined) {
          // What the incentive still holds is its asset balance.
          expect(served.remainingBalance, `${served.type as string}.remainingBalance`).toBe(
            (await balanceOf(served.asset, incentive.assertValidAddress())).toString(),
          );
          expect(served.totalClaims, `${served.type as string}.totalClaims`).toBe(String(await read(incentive, 'claims')));
        }
      }
    }
    expect([...seen].sort()).toEqual(Object.keys(getters).sort());
    const raffle = (await detail(0)).incentives[1]!;
    // Three entries, each a claim of amount 0; the one prize is still held (compared with balanceOf above).
    expect(raffle).toMatchObject({ strategy: 1, totalClaims: '3', totalAmountClaimed: '0', remainingBalance: parseEther('5').toString() });
    expect(await balanceOf(raffle.asset, world.boosts[0]!.incentives[1]!.assertValidAddress())).toBe(parseEther('5'));
    const pointsVenue = await world.chain.public.readContract({
      address: world.protocol.points,
      abi: [{ type: 'function', name: 'balanceOf', stateMutability: 'view', inputs: [{ type: 'address' }], outputs: [{ type: 'uint256' }] }],
      functionName: 'balanceOf',
      args: [CLAIMANTS[2].address],
    });
    expect(pointsVenue).toBe(7n);
  });

  it("serves each paying token's decimals, symbol and name as its ERC-20 contract answers them", async () => {
    const assets = new Set<string>();
    for (const boost of world.boosts) {
      for (const served of (await detail(Number(boost.id))).incentives) {
        // CGDAIncentive pays a token but shows no metadata (the public API's variant has none).
        if (typeof served.asset !== 'string' || !('metadata' in served)) continue;
        const address = served.asset as Address;
        const erc20 = (functionName: 'decimals' | 'symbol' | 'name') => world.chain.public.readContract({ address, abi: erc20Abi, functionName });
        const [decimals, symbol, name] = await Promise.all([erc20('decimals'), erc20('symbol'), erc20('name')]);
        expect(served.metadata, `${served.type as string} ${address}`).toMatchObject({ chainId: world.chain.chainId, address, decimals, symbol, name });
        assets.add(address);
      }
    }
    expect([...assets].sort()).toEqual([lower(world.protocol.token), lower(world.protocol.usd)].sort());
  });

  it('serves the action steps and claimant as the EventAction has them', async () => {
    for (const boost of world.boosts) {
      const campaign = await detail(Number(boost.id));
      const action = boost.action as unknown as { getActionSteps(): Promise<Record<string, unknown>[]>; getActionClaimant(): Promise<Record<string, unknown>> };
      const steps = await action.getActionSteps();
      const claimant = await action.getActionClaimant();
      expect(campaign.actionSteps).toEqual(
        steps.map((step): unknown =>
          expect.objectContaining({
            signature: lower(step.signature as string),
            signatureType: step.signatureType === 1 ? 'function' : 'event',
            targetContract: lower(step.targetContract as string),
            chainId: Number(step.chainid),
          }),
        ),
      );
      expect(campaign.actionClaimant).toMatchObject({
        signature: lower(claimant.signature as string),
        fieldIndex: claimant.fieldIndex,
        targetContract: lower(claimant.targetContract as string),
        chainId: Number(claimant.chainid),
      });
    }
  });

  it('serves the members of the allow lists BoostCore cloned, and each list kind', async () => {
    expect((await detail(0)).allowList).toMatchObject({
      type: 'SimpleAllowList',
      owner: lower(CREATOR.address),
      addresses: CLAIMANTS.map((account) => lower(account.address)).sort(),
    });
    expect((await detail(1)).allowList).toMatchObject({ type: 'SimpleDenyList', owner: lower(CREATOR.address), addresses: [lower(RELAYER.address)] });
    expect((await detail(2)).allowList).toMatchObject({ type: 'OpenAllowList', owner: '0x0000000000000000000000000000000000000000' });
    // The shared list is used as it is: BoostCore ignores the parameters, and so does the indexer.
    expect((await detail(3)).allowList).toMatchObject({ type: 'SimpleAllowList', contractAddress: lower(world.sharedList), owner: lower(CREATOR.address) });
    for (const boost of world.boosts.slice(0, 2)) {
      const list = boost.allowList as unknown as { isAllowed(user: Address): Promise<boolean> };
      for (const address of (await detail(Number(boost.id))).allowList!.addresses as Address[]) {
        expect(await list.isAllowed(address)).toBe(boost.id === 0n);
      }
    }
  });

  it('stores one claim per BoostClaimed, with the claimant (not the relayer) and the amount of its Claimed log', async () => {
    const logs = await world.chain.public.getLogs({ address: core, fromBlock: 0n });
    const claimed = logs.filter((log) => log.topics[0] === '0x0f29bbf4ce25d2346bbeb8a898e24e5d6d7d1d19bb895e71faecac833b259547');
    const rows = await queryRows<{ tx_hash: string; log_index: number; claimant: string; amount: string }>(
      database.db,
      sql`SELECT tx_hash, log_index, claimant, amount::text FROM claims ORDER BY tx_hash, log_index`,
    );
    // The points claim is one too; every BoostClaimed is a claim.
    expect(rows).toHaveLength(claimed.length);
    const senders: [string, string][] = [];
    for (const row of rows) {
      const log = claimed.find((entry) => entry.transactionHash === row.tx_hash && entry.logIndex === row.log_index)!;
      expect(log, row.tx_hash).toBeDefined();
      expect(row.claimant).toBe(`0x${log.topics[3]!.slice(26)}`);
      const receipt = await world.chain.public.getTransactionReceipt({ hash: row.tx_hash as `0x${string}` });
      senders.push([lower(receipt.from), row.claimant]);
    }
    // Each claim was sent by its claimant, but one: sent by the relayer for the second claimant.
    const relayed = senders.filter(([sender, claimant]) => sender !== claimant);
    expect(relayed).toEqual([[lower(RELAYER.address), lower(CLAIMANTS[1].address)]]);
  });

  it("a campaign's activity lists its claims", async () => {
    const activity = await app.inject({ url: `/campaigns/${id(0)}/activity` });
    expect(activity.statusCode).toBe(200);
    const text = activity.body.toLowerCase();
    for (const claimant of CLAIMANTS) expect(text).toContain(lower(claimant.address));
  });

  it('indexing again from the checkpoint changes nothing', async () => {
    const before = await databaseState(database);
    await indexOnce(world.chain, core, database);
    expect(await databaseState(database)).toEqual(before);
  });
});
