import {
  AllowListIncentive,
  BoostCore,
  BoostRegistry,
  CGDAIncentive,
  ERC20Incentive,
  ERC20PeggedIncentive,
  ERC20PeggedVariableCriteriaIncentive,
  ERC20VariableCriteriaIncentive,
  ERC20VariableIncentive,
  EventAction,
  type EventActionPayload,
  FilterType,
  type IncentiveCriteria,
  LimitedSignerValidator,
  ManagedBudget,
  ManagedBudgetWithFees,
  PointsIncentive,
  PrimitiveType,
  Roles,
  SignatureType,
  SignerValidator,
  SimpleAllowList,
  SimpleDenyList,
  StrategyType,
} from '@boostxyz/sdk';
import { createConfig } from '@wagmi/core';
import {
  type Abi,
  type Address,
  createTestClient,
  defineChain,
  type Hex,
  parseEther,
  publicActions,
  toHex,
  walletActions,
  zeroAddress,
} from 'viem';
import { mnemonicToAccount, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { deploy, type LocalChain, send } from './local-chain.js';

/**
 * The Boost protocol as it is deployed: BoostRegistry, BoostCore, the base implementations and a
 * ManagedBudget from the bytecode that the official SDK package (@boostxyz/sdk, pinned in
 * package.json) ships, deployed the way the SDK's own test helpers do (test/src/helpers.ts of the
 * protocol's repository), and driven through the SDK: createBoost, claims signed by the
 * validator's signer, clawbacks, raffle draws. This is the legacy (non-proxy) core generation, the
 * one the SDK's bytecode is; the proxy generation's additions (IncentiveAdded, V2 criteria) are
 * covered by the stand-ins of chain/contracts/BoostTestContracts.sol.
 */

/** anvil's default dev accounts (the well-known "test test ... junk" mnemonic): funded on every local chain, nowhere else. */
const DEV_MNEMONIC = 'test test test test test test test test test test test junk';

export const devAccount = (index: number): PrivateKeyAccount =>
  privateKeyToAccount(toHex(mnemonicToAccount(DEV_MNEMONIC, { addressIndex: index }).getHdKey().privateKey!));

export type SdkConfig = ReturnType<typeof sdkConfig>;

/** A wagmi config whose every call goes to the local chain, signed by `account`. */
export function sdkConfig(chain: LocalChain, account: PrivateKeyAccount) {
  const localChain = defineChain({
    id: chain.chainId,
    name: 'anvil',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [chain.url] } },
  });
  const client = createTestClient({ mode: 'anvil', chain: localChain, transport: chain.transport, account, pollingInterval: 20 })
    .extend(publicActions)
    .extend(walletActions);
  return createConfig({ chains: [localChain], client: () => client as never });
}

/** What deploying a base needs of an SDK instance: its ABI and bytecode. */
interface SampleTarget {
  buildParameters(): { abi: Abi | readonly unknown[]; bytecode?: string };
}

type Base = { bases: Record<number, Address | undefined>; registryType: number };

export interface Protocol {
  chain: LocalChain;
  config: SdkConfig;
  /** Deploys everything and signs claims. */
  owner: PrivateKeyAccount;
  core: BoostCore;
  registry: BoostRegistry;
  budget: ManagedBudget;
  /** An 18-decimals ERC-20 the budget is funded with. */
  token: Address;
  /** A 6-decimals ERC-20, for the pegged incentives. */
  usd: Address;
  points: Address;
  /** The SDK's BoostCore bound to another signer (claims sent by the claimant or a relayer). */
  coreAs(account: PrivateKeyAccount): BoostCore;
  /** The SDK's component classes, bound to this chain's base implementations. */
  sdk: typeof SDK;
}

const SDK = {
  EventAction,
  SimpleAllowList,
  SimpleDenyList,
  ManagedBudget,
  ManagedBudgetWithFees,
  AllowListIncentive,
  CGDAIncentive,
  ERC20Incentive,
  ERC20PeggedIncentive,
  ERC20VariableIncentive,
  ERC20VariableCriteriaIncentive,
  ERC20PeggedVariableCriteriaIncentive,
  PointsIncentive,
  SignerValidator,
  LimitedSignerValidator,
};

/** Each base's own bytecode comes from an SDK instance's deployment parameters; the payload only has to be well-formed. */
function sampleTargets(options: { config: SdkConfig; account: PrivateKeyAccount }, token: Address): [string, SampleTarget][] {
  const someone = options.account.address;
  const criteria: IncentiveCriteria = { criteriaType: SignatureType.EVENT, signature: `0x${'11'.repeat(32)}`, fieldIndex: 0, targetContract: token };
  return [
    ['EventAction', new EventAction(options, sampleAction(token, 31337))],
    ['SimpleAllowList', new SimpleAllowList(options, { owner: someone, allowed: [] })],
    ['SimpleDenyList', new SimpleDenyList(options, { owner: someone, denied: [] })],
    ['ManagedBudget', new ManagedBudget(options, { owner: someone, authorized: [], roles: [] })],
    ['ManagedBudgetWithFees', new ManagedBudgetWithFees(options, { owner: someone, authorized: [], roles: [], managementFee: 0n })],
    ['AllowListIncentive', new AllowListIncentive(options, { allowList: someone, limit: 1n })],
    ['CGDAIncentive', new CGDAIncentive(options, { asset: token, initialReward: 1n, rewardDecay: 1n, rewardBoost: 1n, totalBudget: 1n, manager: someone })],
    ['ERC20Incentive', new ERC20Incentive(options, { asset: token, strategy: StrategyType.POOL, reward: 1n, limit: 1n, manager: someone })],
    ['ERC20PeggedIncentive', new ERC20PeggedIncentive(options, { asset: token, peg: token, reward: 1n, limit: 1n, manager: someone })],
    ['ERC20VariableIncentive', new ERC20VariableIncentive(options, { asset: token, reward: 1n, limit: 1n, manager: someone })],
    ['ERC20VariableCriteriaIncentive', new ERC20VariableCriteriaIncentive(options, { asset: token, reward: 1n, limit: 1n, maxReward: 1n, criteria })],
    [
      'ERC20PeggedVariableCriteriaIncentive',
      new ERC20PeggedVariableCriteriaIncentive(options, { asset: token, peg: token, reward: 1n, limit: 1n, maxReward: 1n, manager: someone, criteria }),
    ],
    ['PointsIncentive', new PointsIncentive(options, { venue: token, selector: '0x867904b4', reward: 1n, limit: 1n })],
    ['SignerValidator', new SignerValidator(options, { signers: [someone], validatorCaller: someone })],
    ['LimitedSignerValidator', new LimitedSignerValidator(options, { signers: [someone], validatorCaller: someone, maxClaimCount: 1 })],
  ];
}

/** An EventAction whose steps watch a token's Transfer and a function call, as a campaign's action does. */
export function sampleAction(token: Address, chainid: number): EventActionPayload {
  const transfer = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
  return {
    actionClaimant: { signatureType: SignatureType.EVENT, signature: transfer, fieldIndex: 1, targetContract: token, chainid },
    actionSteps: [
      {
        signature: transfer,
        signatureType: SignatureType.EVENT,
        actionType: 0,
        targetContract: token,
        chainid,
        actionParameter: { filterType: FilterType.EQUAL, fieldType: PrimitiveType.ADDRESS, fieldIndex: 0, filterData: zeroAddress },
      },
      {
        signature: '0x40c10f19',
        signatureType: SignatureType.FUNC,
        actionType: 0,
        targetContract: token,
        chainid,
        actionParameter: { filterType: FilterType.GREATER_THAN, fieldType: PrimitiveType.UINT, fieldIndex: 1, filterData: '0x01' },
      },
    ],
  };
}

/** The SDK's own deployment of a contract that takes constructor arguments (its test helpers call it; it is protected in the types). */
const deployed = <T>(contract: T): Promise<T> => (contract as unknown as { deploy(): Promise<T> }).deploy();

export async function deployProtocol(chain: LocalChain): Promise<Protocol> {
  const owner = devAccount(0);
  const config = sdkConfig(chain, owner);
  const options = { config, account: owner };
  const token = await deploy(chain, 'TestToken', ['Test Token', 'TEST', 18]);
  const usd = await deploy(chain, 'TestToken', ['Test Dollar', 'TUSD', 6]);
  const points = await deploy(chain, 'TestPoints');

  const registry = await deployed(new BoostRegistry({ ...options, address: null as never }));
  (BoostRegistry.addresses)[chain.chainId] = registry.assertValidAddress();
  for (const [name, target] of sampleTargets(options, token)) {
    const { abi, bytecode } = target.buildParameters();
    const hash = await chain.wallet.deployContract({ abi: abi as Abi, bytecode: bytecode as Hex, account: chain.account, chain: null });
    const receipt = await chain.public.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    const base = (SDK as Record<string, unknown>)[name] as Base;
    base.bases[chain.chainId] = receipt.contractAddress!;
    await registry.register(base.registryType, name, receipt.contractAddress!);
  }
  const deployedCore = await deployed(
    new BoostCore({ ...options, address: null as never, registryAddress: registry.assertValidAddress(), protocolFeeReceiver: owner.address, owner: owner.address }),
  );
  (BoostCore.addresses)[chain.chainId] = deployedCore.assertValidAddress();
  const core = new BoostCore({ ...options, address: deployedCore.assertValidAddress() });

  const budget = await registry.initialize(
    'Test budget',
    core.ManagedBudget({ owner: owner.address, authorized: [owner.address, core.assertValidAddress()], roles: [Roles.ADMIN, Roles.MANAGER] }),
  );
  for (const [asset, amount] of [
    [token, parseEther('1000')],
    [usd, 1_000_000n * 10n ** 6n],
  ] as const) {
    await send(chain, asset, 'TestToken', 'mint', [owner.address, amount]);
    await send(chain, asset, 'TestToken', 'approve', [budget.assertValidAddress(), amount]);
    await budget.allocate({ amount, asset, target: owner.address });
  }
  return {
    chain,
    config,
    owner,
    core,
    registry,
    budget,
    token,
    usd,
    points,
    coreAs: (account) => new BoostCore({ config: sdkConfig(chain, account), account, address: core.assertValidAddress() }),
    sdk: SDK,
  };
}
