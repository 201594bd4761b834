import { type Boost, Roles, type SimpleAllowList, type SimpleDenyList, StrategyType } from '@boostxyz/sdk';
import { type Address, encodeFunctionData, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { allowListEditAbi } from '../../src/chain/abi.js';
import type { AllowListEditSource } from '../../src/chain/allow-list-calls.js';
import { deploy, send } from '../../scripts/chain/local-chain.js';
import { boostBasics } from '../../scripts/chain/boosts.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { indexOnce } from '../chain/chain-fixture.js';
import { CAMPAIGN_OWNER, CLAIMANTS, claim, RELAYER, startWorld, type World } from './world.js';

/**
 * Owner edits of allow lists (SimpleAllowList.setAllowed, SimpleDenyList.setDenied: no event) on
 * the protocol's own bytecode, followed by the indexer in each of INDEXER_ALLOW_LIST_EDITS's ways:
 * edits sent to the lists, a reverted one, an edit made through another contract (TestForwarder, a
 * stand-in for a multisig or a helper contract: the SDK has none) and one that contract's call
 * reverted inside a successful transaction, an edit between AllowListIncentive claims, and edits a
 * reorganisation orphans while an earlier one of the same range stays. Boost 0's cloned list is
 * shared with boost 4, which uses it as it is: both campaigns serve its members; boost 5 is gated
 * by the list boost 3's AllowListIncentive fills.
 */

const lower = (address: string) => address.toLowerCase();
const SOURCES: AllowListEditSource[] = ['transactions', 'trace_filter', 'debug_trace'];
const NONE: Hex = `0x${'00'.repeat(32)}`;

describe('the indexer follows owner edits of allow lists (SDK bytecode on anvil)', () => {
  let world: World;
  let core: Address;
  let allowList: SimpleAllowList;
  let denyList: SimpleDenyList;
  let forwarder: Address;
  /** The chain before any edit: each way starts from it, with a database of its own. */
  let start: Hex;
  const people = () => [...CLAIMANTS.map((account) => account.address), RELAYER.address, CAMPAIGN_OWNER.address];

  beforeAll(async () => {
    world = await startWorld();
    const { core: sdkCore, token, budget } = world.protocol;
    core = sdkCore.assertValidAddress();
    const [b0, b1] = world.boosts as [Boost, Boost];
    allowList = b0.allowList as SimpleAllowList;
    denyList = b1.allowList as SimpleDenyList;
    // Boost 4: gated by boost 0's list, used as it is.
    await sdkCore.createBoost({
      ...boostBasics(world.protocol),
      maxParticipants: 0n,
      allowList: sdkCore.SimpleAllowList(allowList.assertValidAddress(), false),
      incentives: [sdkCore.ERC20Incentive({ asset: token, strategy: StrategyType.POOL, reward: 1n, limit: 1n, manager: budget.assertValidAddress() })],
    });
    // Boost 5: gated by the list boost 3's AllowListIncentive adds its claimants to.
    await sdkCore.createBoost({
      ...boostBasics(world.protocol),
      maxParticipants: 0n,
      allowList: sdkCore.SimpleAllowList(world.membershipList, false),
      incentives: [sdkCore.ERC20Incentive({ asset: token, strategy: StrategyType.POOL, reward: 1n, limit: 1n, manager: budget.assertValidAddress() })],
    });
    forwarder = await deploy(world.chain, 'TestForwarder');
    // The forwarder may edit the allow list (a manager); it does not own the deny list.
    await allowList.grantManyRoles([forwarder], [Roles.MANAGER]);
    start = await world.chain.snapshot();
  }, 180_000);

  afterAll(async () => {
    await world?.chain.stop();
  });

  /** The members each list has on chain: the allowed of the allow list, the denied of the deny list. */
  async function onChain(list: SimpleAllowList | SimpleDenyList, denied: boolean): Promise<string[]> {
    const members: string[] = [];
    for (const address of people()) if ((await list.isAllowed(address)) !== denied) members.push(lower(address));
    return members.sort();
  }

  const editData = (functionName: 'setAllowed' | 'setDenied', users: Address[], flags: boolean[]) =>
    encodeFunctionData({ abi: allowListEditAbi, functionName, args: [users, flags] });

  for (const source of SOURCES) {
    describe(`INDEXER_ALLOW_LIST_EDITS=${source}`, () => {
      let database: TestDatabase;
      let app: App;
      const index = () => indexOnce(world.chain, core, database, { allowListEdits: source });
      const served = async (boostId: number): Promise<string[]> => {
        const response = await app.inject({ url: `/campaigns/${world.chain.chainId}:${lower(core)}:${boostId}` });
        expect(response.statusCode).toBe(200);
        return response.json<{ allowList: { addresses: string[] } }>().allowList.addresses;
      };

      beforeAll(async () => {
        await world.chain.revert(start);
        start = await world.chain.snapshot();
        database = await createTestDatabase();
        await index();
        app = await buildTestApp(database);
      }, 120_000);

      afterAll(async () => {
        await app?.close();
        await database?.close();
      });

      it('serves the members after edits sent to the lists, and ignores a reverted edit', async () => {
        const [c1, c2, c3] = CLAIMANTS.map((account) => lower(account.address));
        expect(await served(0)).toEqual([c1, c2, c3].sort());
        expect(await served(4)).toEqual(await served(0));
        await allowList.setAllowed([CLAIMANTS[1].address, RELAYER.address], [false, true]);
        await denyList.setDenied([RELAYER.address, CLAIMANTS[2].address], [false, true]);
        // Sent by someone who may not edit the list: mined, reverted.
        const hash = await world.chain.wallet.sendTransaction({
          account: CLAIMANTS[0].address,
          to: allowList.assertValidAddress(),
          data: editData('setAllowed', [CAMPAIGN_OWNER.address], [true]),
          gas: 300_000n,
          chain: null,
        });
        expect((await world.chain.public.waitForTransactionReceipt({ hash, pollingInterval: 20 })).status).toBe('reverted');
        await index();
        expect(await served(0)).toEqual([c1, c3, lower(RELAYER.address)].sort());
        expect(await served(0)).toEqual(await onChain(allowList, false));
        // The campaign that shares the list serves the same members.
        expect(await served(4)).toEqual(await served(0));
        expect(await served(1)).toEqual([c3]);
        expect(await served(1)).toEqual(await onChain(denyList, true));
      });

      it(`${source === 'transactions' ? 'misses' : 'follows'} an edit made through another contract, and never applies a call that reverted`, async () => {
        const before = await served(0);
        await send(world.chain, forwarder, 'TestForwarder', 'forward', [allowList.assertValidAddress(), editData('setAllowed', [CLAIMANTS[1].address], [true])]);
        // The forwarder does not own the deny list: its call reverts, its transaction does not.
        await send(world.chain, forwarder, 'TestForwarder', 'tryForward', [denyList.assertValidAddress(), editData('setDenied', [CLAIMANTS[0].address], [true])]);
        expect(await denyList.isAllowed(CLAIMANTS[0].address)).toBe(true);
        expect(await allowList.isAllowed(CLAIMANTS[1].address)).toBe(true);
        await index();
        if (source === 'transactions') {
          // Only transactions sent to a list are read (docs/operations.md).
          expect(await served(0)).toEqual(before);
        } else {
          expect(await served(0)).toEqual([...before, lower(CLAIMANTS[1].address)].sort());
          expect(await served(0)).toEqual(await onChain(allowList, false));
        }
        expect(await served(4)).toEqual(await served(0));
        expect(await served(1)).toEqual(await onChain(denyList, true));
      });

      it("applies an owner's edit and AllowListIncentive claims in chain order", async () => {
        const [c1, , c3] = CLAIMANTS;
        const membership = world.protocol.core.SimpleAllowList(world.membershipList, false);
        // In one block range: c1 joins by claiming, the owner takes c1 out, c3 joins.
        await claim(world, world.boosts[3]!, 2, c1, NONE);
        await membership.setAllowed([c1.address], [false]);
        await claim(world, world.boosts[3]!, 2, c3, NONE);
        await index();
        expect(await served(5)).toEqual([lower(c3.address)]);
        expect(await served(5)).toEqual(await onChain(membership, false));
      });

      it('gives a list back as it was before the first orphaned edit when a reorganisation orphans some of a range', async () => {
        const before = { allowList: await served(0), denyList: await served(1) };
        const [c1] = CLAIMANTS.map((account) => lower(account.address));
        await allowList.setAllowed([CLAIMANTS[0].address], [false]);
        // The fork: the edit above stays on the chain, the two below are orphaned.
        const snapshot = await world.chain.snapshot();
        await send(world.chain, forwarder, 'TestForwarder', 'forward', [allowList.assertValidAddress(), editData('setAllowed', [CAMPAIGN_OWNER.address], [true])]);
        await denyList.setDenied([CAMPAIGN_OWNER.address], [true]);
        await index();
        expect(await served(0)).not.toContain(c1);
        if (source !== 'transactions') expect(await served(0)).toContain(lower(CAMPAIGN_OWNER.address));
        expect(await served(1)).toContain(lower(CAMPAIGN_OWNER.address));
        // The other branch, from the fork, longer and without the two edits.
        await world.chain.revert(snapshot);
        await world.chain.mine(5);
        await index();
        const kept = before.allowList.filter((address) => address !== c1);
        expect(await served(0)).toEqual(kept);
        expect(await served(4)).toEqual(kept);
        expect(await served(1)).toEqual(before.denyList);
        expect(await served(1)).toEqual(await onChain(denyList, true));
        if (source !== 'transactions') expect(await served(0)).toEqual(await onChain(allowList, false));
      });
    });
  }
});
