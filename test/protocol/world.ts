import { type Boost, Roles, StrategyType } from '@boostxyz/sdk';
import { type Address, type Hex, parseEther, parseUnits, zeroAddress } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { boostBasics, claim as claimThroughSdk, ISSUE_SELECTOR, transferCriteria } from '../../scripts/chain/boosts.js';
import { type LocalChain, startAnvil } from '../../scripts/chain/local-chain.js';
import { deployProtocol, devAccount, type Protocol } from '../../scripts/chain/protocol.js';

/**
 * The real-protocol suite's world: the protocol deployed from the SDK's bytecode, and campaigns
 * made through the SDK's createBoost covering every incentive variant and allow-list kind of the
 * legacy core generation, claimed through the SDK with claims signed by the validator's signer.
 */

export const CREATOR = devAccount(0);
export const CAMPAIGN_OWNER = devAccount(5);
export const CLAIMANTS = [devAccount(1), devAccount(2), devAccount(3)] as const;
export const RELAYER = devAccount(4);
export const REFERRER: Address = '0x00000000000000000000000000000000000000aa';

export interface World {
  chain: LocalChain;
  protocol: Protocol;
  boosts: Boost[];
  /** The shared SimpleAllowList: deployed once through the registry and used by a boost as it is. */
  sharedList: Address;
  /** The list the AllowListIncentive adds its claimants to. */
  membershipList: Address;
}

export async function startWorld(): Promise<World> {
  const chain = await startAnvil();
  const protocol = await deployProtocol(chain);
  const { core, budget, token, usd, points, registry, owner } = protocol;
  // Fresh component instances for each boost: the SDK binds an instance to the clone it made.
  const common = () => boostBasics(protocol);
  const manager = budget.assertValidAddress();

  const sharedList = await registry.initialize(
    'Shared allow list',
    core.SimpleAllowList({ owner: owner.address, allowed: [CLAIMANTS[0].address, CLAIMANTS[2].address] }),
  );
  // The list an AllowListIncentive adds its claimants to.
  const membershipList = await registry.initialize('Membership list', core.SimpleAllowList({ owner: owner.address, allowed: [] }));
  const boosts: Boost[] = [];
  // 0: ERC-20 in POOL and RAFFLE, a cloned SimpleAllowList, owned by someone other than its creator.
  boosts.push(
    await core.createBoost({
      ...common(),
      owner: CAMPAIGN_OWNER.address,
      maxParticipants: 10n,
      allowList: core.SimpleAllowList({ owner: owner.address, allowed: CLAIMANTS.map((account) => account.address) }),
      incentives: [
        core.ERC20Incentive({ asset: token, strategy: StrategyType.POOL, reward: parseEther('1'), limit: 10n, manager }),
        // The draw needs the manager role: the creator keeps it.
        core.ERC20Incentive({ asset: token, strategy: StrategyType.RAFFLE, reward: parseEther('5'), limit: 3n, manager: owner.address }),
      ],
    }),
  );
  // 1: variable and variable criteria, a cloned SimpleDenyList.
  boosts.push(
    await core.createBoost({
      ...common(),
      maxParticipants: 100n,
      allowList: core.SimpleDenyList({ owner: owner.address, denied: [RELAYER.address] }),
      incentives: [
        core.ERC20VariableIncentive({ asset: token, reward: 0n, limit: parseEther('20'), manager }),
        core.ERC20VariableCriteriaIncentive({ asset: token, reward: parseEther('0.5'), limit: parseEther('30'), maxReward: parseEther('4'), criteria: transferCriteria(token) }),
      ],
    }),
  );
  // 2: pegged and pegged variable criteria, the open allow list.
  boosts.push(
    await core.createBoost({
      ...common(),
      maxParticipants: 100n,
      allowList: core.OpenAllowList(),
      incentives: [
        core.ERC20PeggedIncentive({ asset: usd, peg: token, reward: parseEther('2'), limit: parseUnits('500', 6), manager }),
        core.ERC20PeggedVariableCriteriaIncentive({
          asset: usd,
          peg: zeroAddress,
          reward: parseEther('1'),
          limit: parseUnits('300', 6),
          maxReward: parseUnits('50', 6),
          manager,
          criteria: transferCriteria(usd),
        }),
      ],
    }),
  );
  // 3: points, CGDA and allow-list incentives, the shared SimpleAllowList as it is.
  const allowListIncentive = core.AllowListIncentive({ allowList: membershipList.assertValidAddress(), limit: 5n });
  boosts.push(
    await core.createBoost({
      ...common(),
      maxParticipants: 0n,
      // An allow list that exists already is used as it is, not cloned (isBase false).
      allowList: core.SimpleAllowList(sharedList.assertValidAddress(), false),
      incentives: [
        core.PointsIncentive({ venue: points, selector: ISSUE_SELECTOR, reward: 7n, limit: 100n }),
        core.CGDAIncentive({
          asset: token,
          initialReward: parseEther('1'),
          rewardDecay: parseEther('0.1'),
          rewardBoost: parseEther('0.05'),
          totalBudget: parseEther('10'),
          manager,
        }),
        allowListIncentive,
      ],
    }),
  );
  // The allow-list incentive adds each claimant to its list: it needs the manager role there.
  await membershipList.grantManyRoles([boosts[3]!.incentives[2]!.assertValidAddress()], [Roles.MANAGER]);
  return { chain, protocol, boosts, sharedList: sharedList.assertValidAddress(), membershipList: membershipList.assertValidAddress() };
}

/** A claim signed by the validator's signer and sent by the claimant, or by a relayer with a referrer. */
export async function claim(world: World, boost: Boost, incentiveId: number, claimant: PrivateKeyAccount, incentiveData: Hex, via?: 'relayer') {
  const options = via === 'relayer' ? { sender: RELAYER, referrer: REFERRER } : { sender: claimant };
  await claimThroughSdk(world.protocol, boost, incentiveId, claimant.address, incentiveData, options);
}
