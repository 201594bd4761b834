import {
  type ActionClaimant as SdkClaimant,
  type ActionStep as SdkStep,
  type Boost,
  decodeAndReorderLogArgs,
  ERC20VariableCriteriaIncentive,
  EventAction,
  FilterType,
  packFieldIndexes,
  PrimitiveType,
  RegistryType,
  SignatureType,
  TRANSFER_SIGNATURE,
} from '@boostxyz/sdk';
import { createConfig, getTransactionReceipt } from '@wagmi/core';
import {
  type AbiEvent,
  type AbiFunction,
  type Address,
  type Chain,
  concat,
  createTestClient,
  createWalletClient,
  custom,
  defineChain,
  encodeAbiParameters,
  encodeFunctionData,
  type Hex,
  isAddressEqual,
  type Log,
  maxUint256,
  pad,
  parseAbiItem,
  parseEther,
  publicActions,
  size,
  toEventSelector,
  toFunctionSelector,
  toHex,
  walletActions,
  zeroAddress,
  zeroHash,
} from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { amountData, boostBasics, claim } from '../../scripts/chain/boosts.js';
import { artifacts, claimData, createBoostCalldataArgument, deploy, type LocalChain, startAnvil } from '../../scripts/chain/local-chain.js';
import { deployProtocol, devAccount, type Protocol } from '../../scripts/chain/protocol.js';
import {
  type AbiLookup,
  type ActionClaimant,
  type ActionStep,
  checkActionSteps,
  criteriaAmount,
  deriveClaimant,
  type IncentiveCriteria,
  type MinedTransaction,
  regexRefusal,
  type StepVerdict,
} from '../../src/chain/action-steps.js';
import { readAction, readIncentive } from '../../src/chain/components.js';
import { createRpc } from '../../src/chain/rpc.js';

/**
 * src/chain/action-steps.ts against the SDK it ports (@boostxyz/sdk 5.5.0), differentially: a
 * corpus of real transactions on anvil (every transaction of the chain: the protocol's own
 * deployment from the SDK's bytecode, token transfers, mints, approvals, calls of the test
 * contracts, reverted ones, the actions' and incentives' creation, claims, a budget's batch
 * disbursement, and the logs of a contract of "the sender's own") and EventActions deployed
 * through the SDK with steps covering every filter and primitive type. The steps, claimants and
 * criteria the module reads are the service's own reads of the deployed contracts (readAction /
 * readIncentive of src/chain/components.ts); the reference reads them through the SDK.
 *
 * The reference is the SDK 5.5.0 wherever it decides something, with the rules the module takes
 * from the protocol's later SDK releases applied around it (never by redoing its comparisons):
 *   - an event step: for each log of the receipt the SDK fetches (getTransactionReceipt on the
 *     step's chain, as its hash path does) whose topic0 is the step's signature and whose address
 *     is the step's target (the zero address: any), the SDK's own verdict on that log alone:
 *     `isActionEventValid(step, [log], event)`, the log decoded as the hash path decodes it
 *     (`decodeTransferLogs` of a receipt holding only that log for Transfer, ERC-721 then ERC-20;
 *     `decodeAndReorderLogArgs` for any other event; a log that does not decode meets nothing),
 *     after the hash path's own refusals (no ABI, `isArraylikeIndexed`), with a fresh copy of the
 *     step for each log (the SDK writes the resolved field type into it). The logs that pass are
 *     the step's;
 *   - event steps of one (signature, target) must be met by one log: their sets are intersected,
 *     in step order, and an empty intersection fails the action;
 *   - a function step: `tx.to` is the step's target (the zero address: any) and the SDK's
 *     `isActionStepValid(step, { hash })` holds;
 *   - the action is met when every step is; only `met` is compared;
 *   - the claimant: `deriveActionClaimantFromTransaction` as it is (it checks the target itself);
 *   - a criteria's amount: `getIncentiveScalar`, for an event criteria on a receipt whose logs are
 *     only its target's (any contract's for the zero address: the SDK's own code, run through a
 *     transport that drops the other logs from eth_getTransactionReceipt), for a function criteria
 *     only when `tx.to` is its target (zero: any). A rejection of the SDK counts as no.
 * Where the rules part from the SDK 5.5.0 (a lookalike log of another contract, a call of another
 * contract, two steps met by two logs, a log that no longer spoils the others, a later log read as
 * the first), a case of its own shows the 5.5.0's answer beside the reference's and the module's.
 */

const USERS = [1, 2, 3, 4, 5, 6].map((index) => devAccount(index));
const user = (n: number) => USERS[n - 1]!;
const [U1, U2, U3, U4, U5, U6] = USERS.map((account) => account.address) as [Address, Address, Address, Address, Address, Address];
const REFERRER: Address = '0x00000000000000000000000000000000000000aa';
/** The asset the stand-in ERC20Incentive names (local-chain.ts's ASSET). */
const STAND_IN_ASSET: Address = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913';
const PERMIT_R: Hex = `0x${'ab'.repeat(32)}`;

/** The registry's ABI items, as @boostxyz/signatures shapes them (unnamed inputs) but for the named ones noted. */
const KNOWN_ITEMS = [
  'event Transfer(address indexed, address indexed, uint256)',
  'event Approval(address indexed, address indexed, uint256)',
  'event Initialized(uint64)',
  // Named, and nothing indexed: viem decodes its args as an object (SDK quirk: never matches).
  'event ToppedUp(address sender, uint256 amount)',
  // Named, with an indexed input: the SDK turns the object into an array.
  'event Claimed(address indexed recipient, bytes data)',
  'event BoostClaimed(uint256 indexed, uint256 indexed, address indexed, address, bytes)',
  'event IncentiveAdded(uint256 indexed, uint256 indexed, address indexed, bool)',
  'event ERC20VariableCriteriaIncentiveInitialized(address indexed, uint256, uint256, uint256, (uint8, bytes32, uint8, address))',
  'event Deployed(uint8 indexed, bytes32 indexed, address, address)',
  'event Registered(uint8 indexed, bytes32 indexed, address)',
  // A non-indexed input before an indexed one, unnamed: the SDK's reordering scrambles it.
  'event ProtocolFeesCollected(uint256 indexed, uint256 indexed, uint256, address indexed)',
  'function mint(address, uint256)',
  'function transfer(address, uint256)',
  'function approve(address, uint256)',
  'function permit(address, address, uint256, uint256, uint8, bytes32, bytes32)',
  'function forward(address, bytes)',
  'function updateAnswer(int256)',
  'function updateRoundData(uint80, int256, uint256, uint256)',
  'function issue(address, uint256)',
  'function deployClone(uint8, address, string, bytes)',
  'function register(uint8, string, address)',
  'function addIncentiveToBoost(uint256, (bool, address, bytes))',
  'function claimMany(uint256, uint256, bytes, address[])',
  'function requestOwnershipHandover()',
  'function topup(uint256)',
];
const item = (signature: string) => parseAbiItem(signature) as AbiEvent | AbiFunction;
/** The key an item has in knownSignatures and on chain: the event topic, or the selector padded on the left to 32 bytes. */
const keyOf = (abi: AbiEvent | AbiFunction): Hex => (abi.type === 'event' ? toEventSelector(abi) : pad(toFunctionSelector(abi)));
const KNOWN: Record<Hex, AbiEvent | AbiFunction> = Object.fromEntries(KNOWN_ITEMS.map((text) => [keyOf(item(text)), item(text)]));
const abiFor: AbiLookup = (signature) => KNOWN[signature];
const sig = (text: string): Hex => keyOf(item(text));

const S = {
  transfer: sig('event Transfer(address indexed, address indexed, uint256)'),
  approval: sig('event Approval(address indexed, address indexed, uint256)'),
  initialized: sig('event Initialized(uint64)'),
  toppedUp: sig('event ToppedUp(address, uint256)'),
  boostClaimed: sig('event BoostClaimed(uint256 indexed, uint256 indexed, address indexed, address, bytes)'),
  incentiveAdded: sig('event IncentiveAdded(uint256 indexed, uint256 indexed, address indexed, bool)'),
  criteriaInitialized: sig('event ERC20VariableCriteriaIncentiveInitialized(address indexed, uint256, uint256, uint256, (uint8, bytes32, uint8, address))'),
  deployed: sig('event Deployed(uint8 indexed, bytes32 indexed, address, address)'),
  claimed: sig('event Claimed(address indexed, bytes)'),
  feesCollected: sig('event ProtocolFeesCollected(uint256 indexed, uint256 indexed, uint256, address indexed)'),
  paused: sig('event Paused(address)'),
  mint: sig('function mint(address, uint256)'),
  transferCall: sig('function transfer(address, uint256)'),
  approve: sig('function approve(address, uint256)'),
  permit: sig('function permit(address, address, uint256, uint256, uint8, bytes32, bytes32)'),
  forward: sig('function forward(address, bytes)'),
  updateAnswer: sig('function updateAnswer(int256)'),
  updateRoundData: sig('function updateRoundData(uint80, int256, uint256, uint256)'),
  issue: sig('function issue(address, uint256)'),
  deployClone: sig('function deployClone(uint8, address, string, bytes)'),
  register: sig('function register(uint8, string, address)'),
  addIncentive: sig('function addIncentiveToBoost(uint256, (bool, address, bytes))'),
  claimMany: sig('function claimMany(uint256, uint256, bytes, address[])'),
  handover: sig('function requestOwnershipHandover()'),
  burn: sig('function burn(uint256)'),
};

const word = (value: bigint) => encodeAbiParameters([{ type: 'uint256' }], [value]);
const text = (value: string) => toHex(value);

/** The target rule (the protocol's later SDK): the zero address is any contract; a contract creation calls none. */
const onTarget = (target: Address, address: Address | null) => address !== null && (isAddressEqual(target, zeroAddress) || isAddressEqual(target, address));

/**
 * A contract of the sender's own, which logs what it is told: the test contracts have none, so it
 * is raw bytecode, for logs of three topics (an ERC-20's Transfer) or four (an ERC-721's). Its
 * calldata is `target ‖ topics ‖ length ‖ data ‖ call` (32-byte words but data and call): it emits
 * LOG3 or LOG4(topics, data), then calls `target` with `call` (the zero address: a call that does
 * nothing), and reverts if that call fails (else gas estimation would settle on too little gas for it).
 */
function logEmitter(topics: 3 | 4): Hex {
  const byte = (value: number) => value.toString(16).padStart(2, '0');
  const length = byte(0x20 * (topics + 1));
  const data = byte(0x20 * (topics + 2));
  const call = [
    '5f5f', // retSize 0, retOffset 0
    `60${length}5160${data}01`, // argsOffset = data + length
    '803603', '90', // argsSize = CALLDATASIZE - argsOffset
    '5f', '5f51', '5a', 'f1', // value 0, MLOAD target, GAS, CALL
  ].join('');
  const head = [
    '365f5f37', // CALLDATACOPY(0, 0, CALLDATASIZE)
    ...Array.from({ length: topics }, (_, i) => `60${byte(0x20 * (topics - i))}51`), // MLOAD the topics, the last first
    `60${length}51`, `60${data}`, byte(0xa0 + topics), // LOGn(data, length, topics)
    call,
  ].join('');
  // ISZERO PUSH1 JUMPI STOP: five bytes to the JUMPDEST; if the call failed, REVERT there, else STOP.
  const tail = `1560${byte(head.length / 2 + 5)}57005b5f5ffd`;
  const runtime = head + tail;
  // CODECOPY(0, 9, size); RETURN(0, size): nine bytes of constructor.
  return `0x60${byte(runtime.length / 2)}8060095f395ff3${runtime}`;
}
const emitterInput = (topics: Hex[], data: Hex, then: { to: Address; data: Hex } = { to: zeroAddress, data: '0x' }) =>
  concat([pad(then.to), ...topics, word(BigInt(size(data))), data, then.data]);

type SdkCriteria = Awaited<ReturnType<ERC20VariableCriteriaIncentive['getIncentiveCriteria']>>;
/** The SDK's Transfer decoding of a receipt's logs (ERC-721, else ERC-20): private in its types, reachable all the same. */
type TransferDecoding = { decodeTransferLogs(receipt: { logs: Log[] }): Promise<{ decodedLogs: EventLogs; event: AbiEvent }> };
type EventLogs = Parameters<EventAction['isActionEventValid']>[1];

interface ActionDefinition {
  label: string;
  /** Whether the SDK finds some transaction of the corpus that meets every step: the corpus exercises the definition. */
  expect: 'some' | 'none';
  steps: SdkStep[];
  claimant?: SdkClaimant;
}

describe('action steps, claimant and criteria amount, against the SDK (protocol bytecode on anvil)', () => {
  let chain: LocalChain;
  let protocol: Protocol;
  const corpus: MinedTransaction[] = [];
  /** Each action as the module reads it (steps, claimant) and as the SDK reads it (sdk, sdkSteps). */
  const actions: { definition: ActionDefinition; address: Address; steps: ActionStep[]; claimant: ActionClaimant; sdk: EventAction; sdkSteps: SdkStep[] }[] = [];
  /** Each criteria incentive as the module reads it (criteria) and as the reference asks the SDK (sdk, sdkCriteria). */
  const criteriaIncentives: { label: string; address: Address; criteria: IncentiveCriteria; sdk: ERC20VariableCriteriaIncentive; sdkCriteria: SdkCriteria }[] = [];
  /** The transactions the rule cases name, set as they are sent. */
  const marks = {} as Record<'mintToU3' | 'usdMint' | 'lookalike' | 'undecodable' | 'lookalikeFirst' | 'erc721' | 'batch', Hex>;
  let oracleConfig: ReturnType<typeof createConfig>;

  beforeAll(async () => {
    chain = await startAnvil();
    protocol = await deployProtocol(chain);
    const { token, usd, points, registry, core, owner } = protocol;
    const local = defineChain({ id: chain.chainId, name: 'anvil', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [chain.url] } } });
    const send = async (account: PrivateKeyAccount, to: Address | undefined, data: Hex, options: { value?: bigint; gas?: bigint } = {}) => {
      const wallet = createWalletClient({ account, chain: local, transport: chain.transport });
      const hash = await wallet.sendTransaction({ to, data, ...options });
      const receipt = await chain.public.waitForTransactionReceipt({ hash, pollingInterval: 20 });
      return { hash, created: receipt.contractAddress };
    };
    const call = (name: string, functionName: string, args: unknown[]) => encodeFunctionData({ abi: artifacts[name]!.abi, functionName, args });
    const tokenCall = (functionName: string, args: unknown[]) => call('TestToken', functionName, args);

    // Tokens: mints on both sides of 100, transfers (one of nothing), an approval and its use.
    await send(owner, token, tokenCall('mint', [U1, parseEther('5')]));
    await send(owner, token, tokenCall('mint', [U2, 100n]));
    marks.mintToU3 = (await send(owner, token, tokenCall('mint', [U3, 101n]))).hash;
    await send(owner, token, tokenCall('mint', [U3, 99n]));
    await send(user(1), token, tokenCall('transfer', [U2, parseEther('1')]));
    await send(user(1), token, tokenCall('transfer', [U3, 0n]));
    await send(user(2), token, tokenCall('approve', [U4, maxUint256]));
    await send(user(4), token, tokenCall('transferFrom', [U2, U5, 50n]));
    marks.usdMint = (await send(owner, usd, tokenCall('mint', [U1, 1_000_000n]))).hash;
    await send(user(1), usd, tokenCall('transfer', [U2, 500_000n]));
    // Reverted: a transfer beyond the balance, a permit past its deadline.
    await send(user(3), token, tokenCall('transfer', [U2, 10n ** 30n]), { gas: 100_000n });
    await send(user(1), token, tokenCall('permit', [U1, U2, 1n, 0n, 27, PERMIT_R, PERMIT_R]), { gas: 100_000n });

    // A forwarder: the token's logs in a transaction to another contract; a failed inner call; a revert.
    const forwarder = await deploy(chain, 'TestForwarder');
    await send(user(1), forwarder, call('TestForwarder', 'forward', [token, tokenCall('mint', [U6, 7n])]));
    await send(user(1), forwarder, call('TestForwarder', 'tryForward', [token, tokenCall('transfer', [U1, 10n ** 30n])]));
    await send(user(1), forwarder, call('TestForwarder', 'forward', [token, tokenCall('transfer', [U1, 10n ** 30n])]), { gas: 200_000n });

    // A contract of the sender's own (logEmitter): a lookalike of a mint of the token's; an
    // undecodable Transfer log before a real mint; a lookalike before a real mint; an ERC-721
    // Transfer (four topics) before a real mint.
    const emitter = (await send(user(6), undefined, logEmitter(3))).created!;
    const emitter721 = (await send(user(6), undefined, logEmitter(4))).created!;
    const mintCall = (to: Address, amount: bigint) => ({ to: token, data: tokenCall('mint', [to, amount]) });
    marks.lookalike = (await send(user(6), emitter, emitterInput([S.transfer, pad(zeroAddress), pad(U1)], word(10n ** 30n)))).hash;
    marks.undecodable = (await send(user(6), emitter, emitterInput([S.transfer, pad(zeroAddress), pad(U6)], '0x', mintCall(U6, 11n)))).hash;
    marks.lookalikeFirst = (await send(user(6), emitter, emitterInput([S.transfer, pad(zeroAddress), pad(U6)], word(999n), mintCall(U6, 12n)))).hash;
    marks.erc721 = (await send(user(6), emitter721, emitterInput([S.transfer, pad(zeroAddress), pad(U2), word(77n)], '0x', mintCall(U2, 13n)))).hash;
    // Two Transfer logs of the token in one transaction: the budget's batch disbursement.
    marks.batch = (
      await protocol.budget.disburseBatchRaw([
        { asset: token, target: U5, amount: 3n },
        { asset: token, target: U6, amount: 200n },
      ])
    ).hash;
    await chain.public.waitForTransactionReceipt({ hash: marks.batch, pollingInterval: 20 });

    // Signed integers, a uint80.
    const aggregator = await deploy(chain, 'MockV3Aggregator', [8, -5n]);
    await send(user(1), aggregator, call('MockV3Aggregator', 'updateAnswer', [-42n]));
    await send(user(1), aggregator, call('MockV3Aggregator', 'updateAnswer', [1000n]));
    await send(user(1), aggregator, call('MockV3Aggregator', 'updateRoundData', [7n, -1n, 123n, 456n]));
    // A call without logs.
    await send(user(1), points, call('TestPoints', 'issue', [U1, 5n]));

    // The stand-in core: a tuple argument, a bool in an event, bytes in claims, address[].
    const standInCore = await deploy(chain, 'TestBoostCore');
    const standInIncentive = await deploy(chain, 'TestERC20Incentive', [STAND_IN_ASSET, 0, parseEther('1'), 1_000_000n]);
    const spec = {
      owner: owner.address,
      budget: protocol.budget.assertValidAddress(),
      validator: U5,
      action: U6,
      allowList: { address: U4, owner: owner.address, members: [] },
      incentives: [standInIncentive],
    };
    await send(owner, standInCore, call('TestBoostCore', 'createBoost', [createBoostCalldataArgument(spec)]));
    await send(owner, standInCore, call('TestBoostCore', 'addIncentiveToBoost', [0n, { isBase: false, instance: standInIncentive, parameters: '0x1234' }]));
    await send(owner, standInCore, call('TestBoostCore', 'claimIncentiveFor', [0n, 0n, REFERRER, claimData(5n), U1]));
    await send(owner, standInCore, call('TestBoostCore', 'claimMany', [0n, 0n, claimData(1n), [U1, U2, U3]]));
    await send(owner, standInIncentive, call('TestERC20Incentive', 'topup', [parseEther('2')]));
    await send(owner, standInIncentive, call('TestERC20Incentive', 'topup', [1n]), { gas: 100_000n });
    // Ether only, and a call of a function without arguments.
    await send(user(2), U6, '0x', { value: 1n });
    await send(user(1), core.assertValidAddress(), encodeFunctionData({ abi: [item('function requestOwnershipHandover()') as AbiFunction] }));
    // A registration (a string argument).
    await registry.register(RegistryType.ACTION, 'EventAction again', EventAction.bases[chain.chainId]!);

    // The actions, made through the SDK's registry (their creation is in the corpus too).
    const registryAddress = registry.assertValidAddress();
    const definitions = actionDefinitions(chain.chainId, { token, usd, points, forwarder, aggregator, standInCore, standInIncentive, core: core.assertValidAddress(), registry: registryAddress });
    const rpc = createRpc({ url: chain.url, timeoutMs: 10_000, baseBackoffMs: 10, maxBackoffMs: 100 });
    const made: { definition: ActionDefinition; address: Address }[] = [];
    for (const [index, definition] of definitions.entries()) {
      const payload = {
        actionSteps: definition.steps,
        actionClaimant: definition.claimant ?? { signatureType: SignatureType.EVENT, signature: zeroHash, fieldIndex: 255, targetContract: zeroAddress, chainid: chain.chainId },
      };
      // One name is a number: a criteria reading deployClone's name turns it into an amount.
      const name = index === 7 ? '42' : `action ${index}: ${definition.label}`;
      const action = await registry.initialize(name, core.EventAction(payload));
      made.push({ definition, address: action.assertValidAddress() });
    }

    // Variable-criteria incentives: one boost through the SDK, and V2 stand-ins.
    const criteria = criteriaDefinitions({ token, usd, aggregator, registry: registryAddress, standInIncentive, standInCore, core: core.assertValidAddress() });
    const criteriaBoost: Boost = await core.createBoost({
      ...boostBasics(protocol),
      maxParticipants: 100n,
      allowList: core.OpenAllowList(),
      incentives: criteria.map(({ criteria: value }) => core.ERC20VariableCriteriaIncentive({ asset: token, reward: 0n, limit: 1000n, maxReward: 0n, criteria: value })),
    });
    await claim(protocol, criteriaBoost, 0, U1, amountData(10n), { sender: user(1) });
    await claim(protocol, criteriaBoost, 3, U2, amountData(20n), { sender: user(2) });
    const v2 = [
      { label: 'V2 event Transfer value (WAD)', criteria: { criteriaType: 0, signature: S.transfer, fieldIndex: 2, targetContract: token, valueType: 1 } },
      { label: 'V2 function mint amount (RAW)', criteria: { criteriaType: 1, signature: S.mint, fieldIndex: 1, targetContract: token, valueType: 0 } },
      { label: 'V2 event Transfer from (an address)', criteria: { criteriaType: 0, signature: S.transfer, fieldIndex: 0, targetContract: token, valueType: 0 } },
    ];
    const v2Addresses: Address[] = [];
    for (const { criteria: value } of v2) v2Addresses.push(await deploy(chain, 'TestERC20VariableCriteriaIncentiveV2', [token, 0n, 10n ** 30n, 0n, value]));

    // Everything is sent: the service's reads of the components, then the whole chain as the corpus.
    const head = await chain.public.getBlockNumber();
    const answers = new Map<string, Promise<unknown>>();
    oracleConfig = cachedConfig(chain, owner, local, answers);
    const oracle = { config: oracleConfig, account: owner };
    for (const { definition, address } of made) {
      const read = await readAction(rpc, address, head);
      if (!read.known) throw new Error(`action ${address} is not an EventAction: ${read.interfaceId}`);
      const sdk = new EventAction(oracle, address);
      actions.push({ definition, address, steps: read.steps, claimant: read.claimant, sdk, sdkSteps: await sdk.getActionSteps() });
    }
    const incentiveAddresses = [...criteriaBoost.incentives.map((incentive) => incentive.assertValidAddress()), ...v2Addresses];
    const labels = [...criteria.map(({ label }) => label), ...v2.map(({ label }) => label)];
    for (const [index, address] of incentiveAddresses.entries()) {
      const read = await readIncentive(rpc, address, head, head);
      if (!read.known) throw new Error(`incentive ${address} is not known: ${read.interfaceId}`);
      const sdkCriteria = await new ERC20VariableCriteriaIncentive(oracle, address).getIncentiveCriteria();
      // An event criteria's SDK sees only its target's logs (rule 5): the same answers, the others' logs dropped.
      const config =
        sdkCriteria.criteriaType === SignatureType.EVENT ? cachedConfig(chain, owner, local, answers, (log) => onTarget(sdkCriteria.targetContract, log)) : oracleConfig;
      const sdk = new ERC20VariableCriteriaIncentive({ config, account: owner }, address);
      criteriaIncentives.push({ label: labels[index]!, address, criteria: read.params.criteria as IncentiveCriteria, sdk, sdkCriteria });
    }
    for (let number = 1n; number <= head; number++) {
      const block = await chain.public.getBlock({ blockNumber: number });
      for (const hash of block.transactions) {
        const [tx, receipt] = await Promise.all([chain.public.getTransaction({ hash }), chain.public.getTransactionReceipt({ hash })]);
        corpus.push({
          hash,
          from: tx.from,
          to: tx.to,
          input: tx.input,
          blockNumber: receipt.blockNumber,
          chainId: chain.chainId,
          status: receipt.status,
          logs: receipt.logs.map(({ address, topics, data, logIndex }) => ({ address, topics, data, logIndex })),
          gasUsed: receipt.gasUsed,
          effectiveGasPrice: receipt.effectiveGasPrice,
          ...(receipt.blobGasUsed === undefined ? {} : { blobGasUsed: receipt.blobGasUsed }),
          ...(receipt.blobGasPrice === undefined ? {} : { blobGasPrice: receipt.blobGasPrice }),
        });
      }
    }
  }, 120_000);

  afterAll(async () => {
    await chain?.stop();
  });

  it('has a corpus of real transactions: successes and reverts, calls, creations, plain transfers', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(40);
    expect(corpus.filter((tx) => tx.status === 'reverted').length).toBeGreaterThanOrEqual(4);
    expect(corpus.filter((tx) => tx.to === null).length).toBeGreaterThanOrEqual(5);
    expect(corpus.some((tx) => tx.input === '0x')).toBe(true);
    expect(corpus.some((tx) => tx.logs.length >= 10)).toBe(true);
    expect(actions.length).toBeGreaterThanOrEqual(50);
    // The rules' transactions, as sent: the batch with two Transfer logs of the token; the
    // emitter's log before the token's, undecodable, or with four topics (an ERC-721 Transfer).
    const byHash = (hash: Hex) => corpus.find((tx) => tx.hash === hash)!;
    expect(Object.values(marks).map((hash) => byHash(hash)?.status)).toEqual(Object.values(marks).map(() => 'success'));
    expect(byHash(marks.batch).logs.filter(({ address, topics }) => topics[0] === S.transfer && isAddressEqual(address, protocol.token))).toHaveLength(2);
    expect(byHash(marks.undecodable).logs.map(({ address, data }) => [isAddressEqual(address, protocol.token), data === '0x'])).toEqual([[false, true], [true, false]]);
    expect(byHash(marks.erc721).logs.map(({ address, topics }) => [isAddressEqual(address, protocol.token), topics.length])).toEqual([[false, 4], [true, 3]]);
  });

  /**
   * The reference for an event step: the positions of the receipt's logs that meet it, each on its
   * own. The receipt is the one the SDK's hash path fetches (on the step's chain); a log counts if
   * its topic0 is the step's signature and it comes from the step's target, and then as the SDK
   * judges it: decoded by the hash path's own helpers, given to isActionEventValid alone.
   */
  async function stepLogs(sdk: EventAction, step: SdkStep, hash: Hex): Promise<Set<number>> {
    const met = new Set<number>();
    const abi = KNOWN[step.signature];
    // The hash path's refusals before any log (it throws): no ABI, a string or bytes filter on an indexed field.
    if (abi === undefined || sdk.isArraylikeIndexed(step, abi as AbiEvent)) return met;
    let logs: Log[];
    try {
      ({ logs } = await getTransactionReceipt(oracleConfig, { hash, chainId: step.chainid }));
    } catch {
      return met;
    }
    for (const [position, log] of logs.entries()) {
      if (log.topics[0] !== step.signature || !onTarget(step.targetContract, log.address)) continue;
      let decoded: EventLogs;
      let event: AbiEvent;
      try {
        if (step.signature === TRANSFER_SIGNATURE) {
          ({ decodedLogs: decoded, event } = await (sdk as unknown as TransferDecoding).decodeTransferLogs({ logs: [log] }));
        } else {
          // As the hash path: the logs of the ABI item's selector, decodeAndReorderLogArgs on each.
          event = abi as AbiEvent;
          decoded = [log].filter(({ topics }) => topics[0] === toEventSelector(abi)).map((one) => decodeAndReorderLogArgs(event, one));
        }
      } catch {
        continue; // this log does not decode; the others are judged all the same
      }
      // A fresh step for each log: isActionEventValid writes the field type it resolved into it.
      if (sdk.isActionEventValid(structuredClone(step), decoded, event)) met.add(position);
    }
    return met;
  }

  /** The reference verdict: the target and one-log rules around the SDK's verdict on each step. */
  async function referenceMet(sdk: EventAction, steps: readonly SdkStep[], tx: MinedTransaction): Promise<boolean> {
    // Event steps of one signature and target: the logs that meet all of them so far.
    const together = new Map<string, Set<number>>();
    for (const step of steps) {
      if (step.signatureType !== SignatureType.EVENT) {
        if (!onTarget(step.targetContract, tx.to)) return false;
        if (!(await sdk.isActionStepValid(structuredClone(step), { hash: tx.hash, knownSignatures: KNOWN }).catch(() => false))) return false;
        continue;
      }
      const logs = await stepLogs(sdk, step, tx.hash);
      const group = `${step.signature}:${step.targetContract.toLowerCase()}`;
      const earlier = together.get(group);
      const common = earlier === undefined ? logs : new Set([...earlier].filter((position) => logs.has(position)));
      if (common.size === 0) return false;
      together.set(group, common);
    }
    return true;
  }

  /** The reference amount: the SDK's getIncentiveScalar (on the target's logs only, for an event criteria), for a call of the target. */
  async function referenceScalar({ sdk, sdkCriteria }: (typeof criteriaIncentives)[number], tx: MinedTransaction): Promise<bigint | undefined> {
    if (sdkCriteria.criteriaType === SignatureType.FUNC && !onTarget(sdkCriteria.targetContract, tx.to)) return undefined;
    return sdk.getIncentiveScalar({ chainId: chain.chainId, hash: tx.hash, knownSignatures: KNOWN }).catch(() => undefined);
  }

  /** What the SDK 5.5.0 itself answers, without the rules: for the cases that show where they part. */
  const sdk550Met = (address: Address, tx: MinedTransaction) =>
    new EventAction({ config: oracleConfig, account: protocol.owner }, address).validateActionSteps({ hash: tx.hash, knownSignatures: KNOWN }).catch(() => false);
  const sdk550Scalar = (address: Address, tx: MinedTransaction) =>
    new ERC20VariableCriteriaIncentive({ config: oracleConfig, account: protocol.owner }, address)
      .getIncentiveScalar({ chainId: chain.chainId, hash: tx.hash, knownSignatures: KNOWN })
      .catch(() => undefined);
  const action = (label: string) => actions.find(({ definition }) => definition.label === label) ?? expect.fail(`no action ${label}`);
  const incentive = (label: string) => criteriaIncentives.find((entry) => entry.label === label) ?? expect.fail(`no incentive ${label}`);
  const mined = (hash: Hex) => corpus.find((tx) => tx.hash === hash) ?? expect.fail(`no transaction ${hash}`);

  it('gives the reference verdict (the SDK on each step, with the target and one-log rules) for every action and transaction', async () => {
    const mismatches: string[] = [];
    const metCount = new Map<string, number>();
    for (const { definition, steps, sdk, sdkSteps } of actions) {
      for (const tx of corpus) {
        const expected = await referenceMet(sdk, sdkSteps, tx);
        const verdict = checkActionSteps(steps, tx, abiFor);
        if (verdict.met !== expected) mismatches.push(`${definition.label} × ${tx.hash}: reference ${expected}, module ${JSON.stringify(verdict)}`);
        if (expected) metCount.set(definition.label, (metCount.get(definition.label) ?? 0) + 1);
        if (!verdict.met) expect(verdict.reason.length).toBeGreaterThan(0);
      }
    }
    expect(mismatches).toEqual([]);
    // Each definition does what it was written for: met by some transaction, or (a quirk or a rule) by none.
    const unexpected = actions
      .filter(({ definition }) => (definition.expect === 'some') !== (metCount.get(definition.label) ?? 0) > 0)
      .map(({ definition }) => `${definition.label}: expected ${definition.expect}, the reference met it ${metCount.get(definition.label) ?? 0} times`);
    expect(unexpected).toEqual([]);
  }, 120_000);

  it('refuses what the SDK 5.5.0 met, and meets what it refused, exactly where the rules say', async () => {
    const criteriaBoost = corpus.find((tx) => tx.logs.filter(({ topics }) => topics[0] === S.criteriaInitialized).length > 1) ?? expect.fail('no criteria boost');
    const cases: { label: string; tx: MinedTransaction; sdk550: boolean; module: Partial<StepVerdict> }[] = [
      // Rule 1: a log of another contract that looks like the token's meets no step on the token…
      { label: 'Transfer of 10^30 on the token (a lookalike log of another contract)', tx: mined(marks.lookalike), sdk550: true, module: { met: false, step: 0, kind: 'action' } },
      // …and a step on the zero address takes a log of any contract.
      { label: 'Transfer of 10^30 on the zero-address target (any contract)', tx: mined(marks.lookalike), sdk550: true, module: { met: true } },
      // Rule 4: a call of usd meets no step on the token's mint.
      { label: 'mint to U3 on the wrong target', tx: mined(marks.mintToU3), sdk550: true, module: { met: false, step: 0, kind: 'action' } },
      // Rule 3: two steps on the token's Transfer met by two logs of the batch, not one…
      { label: 'Transfer to U6 of 3 (two logs, not one)', tx: mined(marks.batch), sdk550: true, module: { met: false, step: 1, kind: 'filter' } },
      // …and by one.
      { label: 'Transfer to U6 of 200 (one log)', tx: mined(marks.batch), sdk550: true, module: { met: true } },
      // Rule 2: an undecodable Transfer log no longer spoils the token's; each Transfer log takes its own shape…
      { label: 'Transfer of 11 (any contract) beside an undecodable Transfer log', tx: mined(marks.undecodable), sdk550: false, module: { met: true } },
      { label: 'Transfer of 13 (any contract) beside an ERC-721 Transfer', tx: mined(marks.erc721), sdk550: false, module: { met: true } },
      { label: 'ERC-721 Transfer of token 77 (any contract) beside an ERC-20 Transfer', tx: mined(marks.erc721), sdk550: false, module: { met: true } },
      // …and a later log is read as the first is (the 5.5.0 read it with the type the first resolved).
      { label: 'criteria tuple fieldIndex 0 (a later log)', tx: criteriaBoost, sdk550: false, module: { met: true } },
    ];
    for (const { label, tx, sdk550, module } of cases) {
      const { address, steps, sdk, sdkSteps } = action(label);
      expect({ label, sdk550: await sdk550Met(address, tx) }).toEqual({ label, sdk550 });
      expect({ label, reference: await referenceMet(sdk, sdkSteps, tx) }).toEqual({ label, reference: module.met });
      expect(checkActionSteps(steps, tx, abiFor), label).toMatchObject(module);
    }
    // The group's two steps are each met in the batch, by different logs.
    const { sdk, sdkSteps } = action('Transfer to U6 of 3 (two logs, not one)');
    const [toU6, ofThree] = await Promise.all(sdkSteps.map((step) => stepLogs(sdk, step, marks.batch)));
    expect(toU6?.size).toBe(1);
    expect(ofThree?.size).toBe(1);
    expect([...toU6!][0]).not.toBe([...ofThree!][0]);
  });

  it("derives deriveActionClaimantFromTransaction's claimant for every action and transaction", async () => {
    const mismatches: string[] = [];
    let found = 0;
    const seen = new Set<string>();
    for (const { definition, address, claimant } of actions) {
      const key = JSON.stringify(claimant);
      if (seen.has(key)) continue;
      seen.add(key);
      const sdk = new EventAction({ config: oracleConfig, account: protocol.owner }, address);
      const sdkClaimant = await sdk.getActionClaimant();
      for (const tx of corpus) {
        const expected = await sdk.deriveActionClaimantFromTransaction(sdkClaimant, { hash: tx.hash, knownSignatures: KNOWN }).catch(() => undefined);
        const ours = deriveClaimant(claimant, tx, abiFor);
        if (ours !== expected) mismatches.push(`${definition.label} claimant × ${tx.hash}: SDK ${expected}, module ${ours}`);
        if (expected !== undefined) found++;
      }
    }
    expect(mismatches).toEqual([]);
    expect(seen.size).toBeGreaterThanOrEqual(12);
    expect(found).toBeGreaterThan(100);
  }, 120_000);

  it("reads the reference amount (getIncentiveScalar on the target's logs or calls) for every criteria incentive and transaction", async () => {
    const mismatches: string[] = [];
    const amounts = new Map<string, number>();
    for (const entry of criteriaIncentives) {
      const { label, criteria } = entry;
      for (const tx of corpus) {
        const expected = await referenceScalar(entry, tx);
        const ours = criteriaAmount(criteria, tx, abiFor);
        if (expected !== undefined) amounts.set(label, (amounts.get(label) ?? 0) + 1);
        // V2 reads only bigints (the SDK's later getScalarValue); 5.5.0 has no V2 and reads V2
        // criteria as V1, which turns an address into a number: the one place they part.
        if (label === 'V2 event Transfer from (an address)') {
          if (ours !== undefined) mismatches.push(`${label} × ${tx.hash}: V2 gave ${ours}`);
          continue;
        }
        if (ours !== expected) mismatches.push(`${label} × ${tx.hash}: reference ${expected}, module ${ours}`);
      }
    }
    expect(mismatches).toEqual([]);
    const none = criteriaIncentives.filter(({ label }) => !amounts.has(label)).map(({ label }) => label);
    expect(none.sort()).toEqual(['V1 event ToppedUp amount (named ABI)', 'V1 event unknown signature', 'V1 function without arguments'].sort());
    expect(amounts.get('V2 event Transfer from (an address)')).toBeGreaterThan(0);
  }, 120_000);

  it("reads a criteria's amount from its target only, where the SDK 5.5.0 reads any contract's", async () => {
    // Rule 5, events: another contract's Transfer log comes first; the 5.5.0 pays its 999, the rule the token's 12.
    const lookalikeFirst = mined(marks.lookalikeFirst);
    for (const label of ['V1 event Transfer value', 'V2 event Transfer value (WAD)']) {
      const entry = incentive(label);
      expect({ label, sdk550: await sdk550Scalar(entry.address, lookalikeFirst) }).toEqual({ label, sdk550: 999n });
      expect({ label, reference: await referenceScalar(entry, lookalikeFirst) }).toEqual({ label, reference: 12n });
      expect(criteriaAmount(entry.criteria, lookalikeFirst, abiFor), label).toBe(12n);
    }
    // Rule 5, calls: a mint of usd pays nothing on a criteria of the token's mint.
    const usdMint = mined(marks.usdMint);
    const mint = incentive('V1 function mint amount');
    expect(await sdk550Scalar(mint.address, usdMint)).toBe(1_000_000n);
    expect(await referenceScalar(mint, usdMint)).toBeUndefined();
    expect(criteriaAmount(mint.criteria, usdMint, abiFor)).toBeUndefined();
  });
});

/**
 * A wagmi config for the SDK whose RPC answers are kept (in `answers`, which configs may share):
 * the chain no longer changes, and the SDK asks the same thousands of times. With `keepLog`, a
 * receipt comes without the logs it refuses: the SDK's own code then reads only the others.
 */
function cachedConfig(chain: LocalChain, account: PrivateKeyAccount, local: Chain, answers: Map<string, Promise<unknown>>, keepLog?: (address: Address) => boolean) {
  const transport = custom({
    request: ({ method, params }: { method: string; params?: unknown }) => {
      const key = JSON.stringify([method, params]);
      let answer = answers.get(key);
      if (answer === undefined) {
        answer = chain.public.request({ method, params } as never);
        answers.set(key, answer);
      }
      if (keepLog === undefined || method !== 'eth_getTransactionReceipt') return answer;
      return answer.then((receipt) => {
        if (receipt === null) return receipt;
        const { logs, ...rest } = receipt as { logs: { address: Address }[] };
        return { ...rest, logs: logs.filter((log) => keepLog(log.address)) };
      });
    },
  });
  const client = createTestClient({ mode: 'anvil', chain: local, transport, account, pollingInterval: 20 }).extend(publicActions).extend(walletActions);
  return createConfig({ chains: [local], client: () => client as never });
}

interface Contracts {
  token: Address;
  usd: Address;
  points: Address;
  forwarder: Address;
  aggregator: Address;
  standInCore: Address;
  standInIncentive: Address;
  core: Address;
  registry: Address;
}

function actionDefinitions(chainid: number, c: Contracts): ActionDefinition[] {
  const { EQUAL, NOT_EQUAL, GREATER_THAN: GT, GREATER_THAN_OR_EQUAL: GTE, LESS_THAN: LT, LESS_THAN_OR_EQUAL: LTE, CONTAINS, REGEX } = FilterType;
  const { UINT, ADDRESS, BYTES, STRING, TUPLE } = PrimitiveType;
  const step =
    (signatureType: SignatureType) =>
    (signature: Hex, targetContract: Address, filterType: FilterType, fieldType: PrimitiveType, fieldIndex: number, filterData: Hex, chain = chainid): SdkStep => ({
      signature,
      signatureType,
      actionType: 0,
      targetContract,
      chainid: chain,
      actionParameter: { filterType, fieldType, fieldIndex, filterData },
    });
  const event = step(SignatureType.EVENT);
  const fn = step(SignatureType.FUNC);
  const claimant = (signatureType: SignatureType, signature: Hex, fieldIndex: number, targetContract: Address): SdkClaimant => ({ signatureType, signature, fieldIndex, targetContract, chainid });
  const anyArgs = [EQUAL, BYTES, 255, zeroHash] as const;
  const define = (label: string, expect: 'some' | 'none', steps: SdkStep[], who?: SdkClaimant): ActionDefinition => ({ label, expect, steps, ...(who ? { claimant: who } : {}) });
  const tuple = (...indexes: number[]) => packFieldIndexes(indexes);

  return [
    // Event steps on Transfer (the SDK's own Transfer decoding), every order filter on UINT.
    define('Transfer value > 100', 'some', [event(S.transfer, c.token, GT, UINT, 2, toHex(100))], claimant(SignatureType.EVENT, S.transfer, 1, c.token)),
    define('Transfer value >= 100', 'some', [event(S.transfer, c.token, GTE, UINT, 2, toHex(100))]),
    define('Transfer value < 100', 'some', [event(S.transfer, c.token, LT, UINT, 2, toHex(100))], claimant(SignatureType.EVENT, S.transfer, 0, c.token)),
    define('Transfer value <= 100', 'some', [event(S.transfer, c.token, LTE, UINT, 2, toHex(100))], claimant(SignatureType.EVENT, S.transfer, 2, c.token)),
    define('Transfer of nothing', 'some', [event(S.transfer, c.token, EQUAL, UINT, 2, '0x00')], claimant(SignatureType.EVENT, S.transfer, 1, c.usd)),
    define('Transfer from the zero address (a mint)', 'some', [event(S.transfer, c.token, EQUAL, ADDRESS, 0, zeroAddress)], claimant(SignatureType.EVENT, S.transfer, 1, zeroAddress)),
    define('Transfer to someone but U2', 'some', [event(S.transfer, c.token, NOT_EQUAL, ADDRESS, 1, U2)]),
    // The target is checked: usd's own mints meet a step on usd (the token's no longer do).
    define('Transfer from the zero address on usd (its own mints)', 'some', [event(S.transfer, c.usd, EQUAL, ADDRESS, 0, zeroAddress)]),
    define('Transfer to U3 on the zero-address target', 'some', [event(S.transfer, zeroAddress, EQUAL, ADDRESS, 1, U3)]),
    define('Transfer indexed field compared as BYTES', 'none', [event(S.transfer, c.token, EQUAL, BYTES, 1, pad(U3))]),
    // SDK quirk: the ABI's type wins over the declared one.
    define('Transfer value declared ADDRESS', 'some', [event(S.transfer, c.token, EQUAL, ADDRESS, 2, '0x64')]),
    define('Transfer value CONTAINS (not for numbers)', 'none', [event(S.transfer, c.token, CONTAINS, UINT, 2, '0x01')]),
    define('any Transfer', 'some', [event(S.transfer, c.token, ...anyArgs)]),
    define('Transfer field out of range', 'none', [event(S.transfer, c.token, EQUAL, UINT, 5, '0x01')]),
    define('Transfer REGEX on an address', 'none', [event(S.transfer, c.token, REGEX, ADDRESS, 1, text('^0x'))]),
    define('Approval of everything', 'some', [event(S.approval, c.token, EQUAL, UINT, 2, toHex(maxUint256))], claimant(SignatureType.EVENT, S.approval, 0, c.token)),
    define('Approval to U4', 'some', [event(S.approval, c.token, EQUAL, ADDRESS, 1, U4)]),
    // An unnamed event with nothing indexed.
    define('Initialized version 1', 'some', [event(S.initialized, zeroAddress, EQUAL, UINT, 0, '0x01')]),
    // SDK quirk: named inputs, nothing indexed: an object, never matched.
    define('ToppedUp (named ABI)', 'none', [event(S.toppedUp, c.standInIncentive, GT, UINT, 1, '0x00')], claimant(SignatureType.EVENT, S.toppedUp, 0, c.standInIncentive)),
    define('BoostClaimed data CONTAINS the word 5', 'some', [event(S.boostClaimed, c.standInCore, CONTAINS, BYTES, 4, word(5n))], claimant(SignatureType.EVENT, S.boostClaimed, 2, c.standInCore)),
    define('BoostClaimed referrer', 'some', [event(S.boostClaimed, c.standInCore, EQUAL, ADDRESS, 3, REFERRER)], claimant(SignatureType.EVENT, S.boostClaimed, 2, c.core)),
    define('BoostClaimed data EQUAL', 'some', [event(S.boostClaimed, c.standInCore, EQUAL, BYTES, 4, claimData(1n))]),
    define('BoostClaimed data REGEX (not for bytes)', 'none', [event(S.boostClaimed, c.standInCore, REGEX, BYTES, 4, text('0'))]),
    define('BoostClaimed data NOT_EQUAL', 'some', [event(S.boostClaimed, c.standInCore, NOT_EQUAL, BYTES, 4, claimData(1n))]),
    // SDK quirk: a bool has no primitive type.
    define('IncentiveAdded bool', 'none', [event(S.incentiveAdded, c.standInCore, EQUAL, UINT, 3, '0x01')]),
    // Two steps with the same signature and target, met by the same log.
    define('IncentiveAdded incentive and boost, one log', 'some', [
      event(S.incentiveAdded, c.standInCore, EQUAL, ADDRESS, 2, c.standInIncentive),
      event(S.incentiveAdded, c.standInCore, EQUAL, UINT, 0, '0x00'),
    ]),
    // TUPLE in an event: the criteria struct of ERC20VariableCriteriaIncentiveInitialized.
    define('criteria tuple fieldIndex 2 (first log)', 'some', [event(S.criteriaInitialized, zeroAddress, EQUAL, TUPLE, tuple(4, 2), '0x02')]),
    // Each log on its own: a later log is read as the first is (the SDK 5.5.0 read it as a plain field, and never matched).
    define('criteria tuple fieldIndex 0 (a later log)', 'some', [event(S.criteriaInitialized, zeroAddress, EQUAL, TUPLE, tuple(4, 2), '0x00')]),
    define('criteria tuple target', 'some', [event(S.criteriaInitialized, zeroAddress, EQUAL, TUPLE, tuple(4, 3), c.token)]),
    define('tuple path through a plain field', 'some', [event(S.criteriaInitialized, zeroAddress, EQUAL, TUPLE, tuple(1, 0), '0x00')]),
    define('Deployed id declared UINT (a bytes32)', 'some', [event(S.deployed, c.registry, NOT_EQUAL, UINT, 1, '0x00')]),
    define('Deployed instance', 'some', [event(S.deployed, c.registry, NOT_EQUAL, ADDRESS, 3, zeroAddress)], claimant(SignatureType.EVENT, S.deployed, 3, c.registry)),
    // A named ABI with an indexed input: the SDK turns the decoded object into an array.
    define('Claimed by U1 (named ABI)', 'some', [event(S.claimed, c.standInIncentive, EQUAL, ADDRESS, 0, U1)], claimant(SignatureType.EVENT, S.claimed, 0, c.standInIncentive)),
    // SDK quirk: the reordering puts the receiver (an address) at field 2 and the amount at 3.
    define('ProtocolFeesCollected receiver at field 3 (scrambled)', 'none', [event(S.feesCollected, c.core, NOT_EQUAL, ADDRESS, 3, zeroAddress)], claimant(SignatureType.EVENT, S.feesCollected, 3, c.core)),
    define('ProtocolFeesCollected amount field read as the receiver', 'some', [event(S.feesCollected, c.core, GT, UINT, 2, toHex(2n ** 100n))], claimant(SignatureType.EVENT, S.feesCollected, 2, c.core)),
    define('an event nobody knows', 'none', [event(S.paused, c.token, ...anyArgs)], claimant(SignatureType.EVENT, S.paused, 0, c.token)),

    // Function steps.
    define('mint more than 100', 'some', [fn(S.mint, c.token, GT, UINT, 1, toHex(100))], claimant(SignatureType.FUNC, S.mint, 0, c.token)),
    // The call must go to the target: a mint to U3 of the token's meets no step on usd's (the SDK 5.5.0 met it).
    define('mint to U3 on the wrong target', 'none', [fn(S.mint, c.usd, EQUAL, ADDRESS, 0, U3)], claimant(SignatureType.FUNC, S.mint, 0, c.usd)),
    define('transfer of nothing', 'some', [fn(S.transferCall, c.token, EQUAL, UINT, 1, '0x00')], claimant(SignatureType.FUNC, S.transferCall, 0, c.token)),
    // SDK quirk: the status is not checked: the reverted transfer counts.
    define('transfer of something', 'some', [fn(S.transferCall, c.token, GT, UINT, 1, '0x00')]),
    define('forward of a mint (bytes CONTAINS)', 'some', [fn(S.forward, c.forwarder, CONTAINS, BYTES, 1, '0x40c10f19')], claimant(SignatureType.FUNC, S.forward, 0, c.forwarder)),
    define('forward to the token', 'some', [fn(S.forward, c.forwarder, EQUAL, ADDRESS, 0, c.token)]),
    define('deployClone named "42"', 'some', [fn(S.deployClone, c.registry, EQUAL, STRING, 2, text('42'))], claimant(SignatureType.FUNC, S.deployClone, 1, c.registry)),
    define('deployClone name CONTAINS budget', 'some', [fn(S.deployClone, c.registry, CONTAINS, STRING, 2, text('budget'))]),
    define('deployClone name REGEX', 'some', [fn(S.deployClone, c.registry, REGEX, STRING, 2, text('^action [0-9]+: deployClone'))]),
    define('deployClone name NOT_EQUAL', 'some', [fn(S.deployClone, c.registry, NOT_EQUAL, STRING, 2, text('42'))]),
    define('register name REGEX with an alternation', 'some', [fn(S.register, c.registry, REGEX, STRING, 1, text('^Simple(Allow|Deny)List$'))]),
    define('deployClone name REGEX the guard refuses', 'none', [fn(S.deployClone, c.registry, REGEX, STRING, 2, text('^(a+)+$'))]),
    define('deployClone name REGEX invalid', 'none', [fn(S.deployClone, c.registry, REGEX, STRING, 2, text('(unclosed'))]),
    // SDK quirk: int compares signed against filterData read unsigned.
    define('updateAnswer below 1 (negative)', 'some', [fn(S.updateAnswer, c.aggregator, LT, UINT, 0, '0x01')]),
    define("updateAnswer equal to -42's two's complement", 'none', [fn(S.updateAnswer, c.aggregator, EQUAL, UINT, 0, toHex(2n ** 256n - 42n))]),
    define('updateRoundData round 7 (uint80)', 'some', [fn(S.updateRoundData, c.aggregator, EQUAL, UINT, 0, '0x07')]),
    define('addIncentiveToBoost tuple address', 'some', [fn(S.addIncentive, c.standInCore, EQUAL, TUPLE, tuple(1, 1), c.standInIncentive)], claimant(SignatureType.FUNC, S.addIncentive, 1, c.standInCore)),
    define('addIncentiveToBoost tuple bytes', 'some', [fn(S.addIncentive, c.standInCore, EQUAL, TUPLE, tuple(1, 2), '0x1234')]),
    define('addIncentiveToBoost tuple bool', 'none', [fn(S.addIncentive, c.standInCore, EQUAL, TUPLE, tuple(1, 0), '0x00')]),
    define('issue, any arguments', 'some', [fn(S.issue, c.points, ...anyArgs)], claimant(SignatureType.FUNC, S.issue, 0, c.points)),
    // SDK quirk: a function without arguments never meets a step.
    define('requestOwnershipHandover, any arguments', 'none', [fn(S.handover, c.core, ...anyArgs)]),
    define('claimMany address[] field', 'none', [fn(S.claimMany, c.standInCore, EQUAL, ADDRESS, 3, U1)]),
    define('permit r (a reverted call)', 'some', [fn(S.permit, c.token, EQUAL, BYTES, 5, PERMIT_R)], claimant(SignatureType.FUNC, S.permit, 0, c.token)),
    define('a function nobody knows', 'none', [fn(S.burn, c.token, ...anyArgs)], claimant(SignatureType.FUNC, S.burn, 0, c.token)),
    define('approve, NOT_EQUAL on the any-field', 'some', [fn(S.approve, c.token, NOT_EQUAL, BYTES, 255, '0x01')]),

    // Several steps.
    define('a mint: its Transfer and its call', 'some', [event(S.transfer, c.token, EQUAL, ADDRESS, 0, zeroAddress), fn(S.mint, c.token, GT, UINT, 1, '0x01')]),
    define('an Approval and a claim, never together', 'none', [event(S.approval, c.token, ...anyArgs), event(S.boostClaimed, c.standInCore, ...anyArgs)]),
    define('a step on another chain', 'none', [event(S.transfer, c.token, ...anyArgs), event(S.transfer, c.token, ...anyArgs, 8453)]),
    define('a forward that mints to U6', 'some', [fn(S.forward, c.forwarder, ...anyArgs), event(S.transfer, c.token, EQUAL, ADDRESS, 1, U6)], claimant(SignatureType.EVENT, S.transfer, 1, c.token)),

    // The rules the SDK 5.5.0 did not apply (each also has a case of its own, beside the 5.5.0's answer).
    // A log of the sender's own contract that looks like the token's mint: not the token's (the 5.5.0 met it)…
    define('Transfer of 10^30 on the token (a lookalike log of another contract)', 'none', [event(S.transfer, c.token, EQUAL, UINT, 2, toHex(10n ** 30n))]),
    // …but any contract's for the zero address.
    define('Transfer of 10^30 on the zero-address target (any contract)', 'some', [event(S.transfer, zeroAddress, EQUAL, UINT, 2, toHex(10n ** 30n))]),
    // Two steps on the token's Transfer: the batch has a log to U6 (of 200) and a log of 3 (to U5), none both.
    define('Transfer to U6 of 3 (two logs, not one)', 'none', [event(S.transfer, c.token, EQUAL, ADDRESS, 1, U6), event(S.transfer, c.token, EQUAL, UINT, 2, '0x03')]),
    define('Transfer to U6 of 200 (one log)', 'some', [event(S.transfer, c.token, EQUAL, ADDRESS, 1, U6), event(S.transfer, c.token, EQUAL, UINT, 2, toHex(200))]),
    // Each log decoded on its own, on a step of any contract's (the 5.5.0 decoded all of a receipt's
    // Transfer logs in one shape, and threw): an undecodable Transfer log beside the token's spoils
    // nothing; an ERC-721 Transfer beside an ERC-20 one is read as ERC-721, and the other as ERC-20.
    define('Transfer of 11 (any contract) beside an undecodable Transfer log', 'some', [event(S.transfer, zeroAddress, EQUAL, UINT, 2, toHex(11))]),
    define('Transfer of 13 (any contract) beside an ERC-721 Transfer', 'some', [event(S.transfer, zeroAddress, EQUAL, UINT, 2, toHex(13))]),
    define('ERC-721 Transfer of token 77 (any contract) beside an ERC-20 Transfer', 'some', [event(S.transfer, zeroAddress, EQUAL, UINT, 2, toHex(77))]),
  ];
}

function criteriaDefinitions(c: Pick<Contracts, 'token' | 'usd' | 'aggregator' | 'registry' | 'standInIncentive' | 'standInCore' | 'core'>) {
  // The SDK's numbering: EVENT = 0, FUNC = 1.
  const criteria = (label: string, criteriaType: SignatureType, signature: Hex, fieldIndex: number, targetContract: Address) => ({
    label,
    criteria: { criteriaType, signature, fieldIndex, targetContract },
  });
  return [
    criteria('V1 event Transfer value', SignatureType.EVENT, S.transfer, 2, c.token),
    criteria('V1 event Transfer from (an address as a number)', SignatureType.EVENT, S.transfer, 0, c.token),
    criteria('V1 gas rebate', SignatureType.EVENT, zeroHash, 255, zeroAddress),
    criteria('V1 function mint amount', SignatureType.FUNC, S.mint, 1, c.token),
    criteria('V1 function transfer recipient (an address as a number)', SignatureType.FUNC, S.transferCall, 0, c.token),
    criteria('V1 function updateAnswer (negative amounts)', SignatureType.FUNC, S.updateAnswer, 0, c.aggregator),
    criteria('V1 event ToppedUp amount (named ABI)', SignatureType.EVENT, S.toppedUp, 1, c.standInIncentive),
    criteria('V1 function deployClone name (a string as a number)', SignatureType.FUNC, S.deployClone, 2, c.registry),
    // usd's approvals only: the token's are another contract's.
    criteria('V1 event Approval on usd', SignatureType.EVENT, S.approval, 2, c.usd),
    criteria('V1 event unknown signature', SignatureType.EVENT, S.paused, 0, c.token),
    criteria('V1 event Initialized version', SignatureType.EVENT, S.initialized, 0, zeroAddress),
    criteria('V1 function without arguments', SignatureType.FUNC, S.handover, 0, c.registry),
    criteria('V1 event BoostClaimed data (bytes as a number)', SignatureType.EVENT, S.boostClaimed, 4, c.standInCore),
    // No reordering here (parseEventLogs): field 2 is the fee amount.
    criteria('V1 event ProtocolFeesCollected amount', SignatureType.EVENT, S.feesCollected, 2, c.core),
  ];
}

describe('action steps: the module’s own guards', () => {
  const deployClone = item('function deployClone(uint8, address, string, bytes)') as AbiFunction;
  const transferEvent = item('event Transfer(address indexed, address indexed, uint256)') as AbiEvent;
  const lookup: AbiLookup = (signature) => ({ [keyOf(deployClone)]: deployClone, [keyOf(transferEvent)]: transferEvent })[signature];
  const token: Address = '0x1111111111111111111111111111111111111111';
  const named = (name: string, extra: Partial<MinedTransaction> = {}): MinedTransaction => ({
    hash: zeroHash,
    from: U1,
    to: token,
    input: encodeFunctionData({ abi: [deployClone], args: [0, token, name, '0x'] }),
    blockNumber: 1n,
    chainId: 1,
    status: 'success',
    logs: [],
    ...extra,
  });
  const regexStep = (pattern: string): ActionStep => ({
    chainId: 1,
    targetContract: token,
    signature: keyOf(deployClone),
    signatureType: 'function',
    parameters: { filterType: FilterType.REGEX, fieldType: PrimitiveType.STRING, fieldIndex: 2, filterData: text(pattern) },
  });
  const transferLog = (amount: bigint) => ({
    address: token,
    topics: [keyOf(transferEvent), pad(U1), pad(U2)] as Hex[],
    data: word(amount),
    logIndex: 0,
  });
  const anyTransfer: ActionStep = {
    chainId: 1,
    targetContract: token,
    signature: keyOf(transferEvent),
    signatureType: 'event',
    parameters: { filterType: FilterType.GREATER_THAN, fieldType: PrimitiveType.UINT, fieldIndex: 2, filterData: '0x00' },
  };

  it('runs a REGEX the guard admits, as the SDK does', () => {
    expect(checkActionSteps([regexStep('^Test (budget|list)$')], named('Test budget'), lookup)).toEqual({ met: true });
    const verdict = checkActionSteps([regexStep('^Test (budget|list)$')], named('Test budgets'), lookup);
    expect(verdict).toMatchObject({ met: false, step: 0, kind: 'filter' });
  });

  it('does not run a REGEX that could backtrack without bound, and says so', () => {
    const started = performance.now();
    const verdict = checkActionSteps([regexStep('^(a+)+$')], named(`${'a'.repeat(40)}!`), lookup);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(verdict).toMatchObject({ met: false, kind: 'filter' });
    expect(verdict.met === false && verdict.reason).toMatch(/REGEX was not run: the pattern repeats a group that itself repeats or alternates/);
    expect(regexRefusal('(\\w+) \\1', 10)).toMatch(/backreference/);
    expect(regexRefusal('(x|xx)*y', 10)).toMatch(/repeats a group/);
    expect(regexRefusal('a*a*a*a*b', 1000)).toMatch(/too many repetitions/);
    expect(regexRefusal('^0x[0-9a-f]{40}$', 42)).toBeUndefined();
  });

  it('does not run a REGEX on a value beyond its cap, nor a pattern beyond its cap', () => {
    const long = checkActionSteps([regexStep('^a')], named('a'.repeat(5000)), lookup);
    expect(long.met === false && long.reason).toMatch(/the value is longer than 1024 characters/);
    const pattern = checkActionSteps([regexStep(`^${'a'.repeat(600)}`)], named('a'), lookup);
    expect(pattern.met === false && pattern.reason).toMatch(/the pattern is longer than 512 characters/);
    const invalid = checkActionSteps([regexStep('(unclosed')], named('a'), lookup);
    expect(invalid.met === false && invalid.reason).toMatch(/not a valid regular expression/);
  });

  it('decodes no more logs than maxLogs, and no more calldata than maxCalldataBytes', () => {
    const many = named('x', { logs: Array.from({ length: 501 }, () => transferLog(5n)) });
    expect(checkActionSteps([anyTransfer], many, lookup)).toMatchObject({ met: false, kind: 'limit', reason: expect.stringMatching(/501 logs; at most 500/) as unknown });
    expect(checkActionSteps([anyTransfer], many, lookup, { maxLogs: 501, maxCalldataBytes: 1024 })).toEqual({ met: true });
    expect(criteriaAmount({ criteriaType: 0, signature: keyOf(transferEvent), fieldIndex: 2, targetContract: token }, many, lookup)).toBeUndefined();

    const big = named('x'.repeat(70_000));
    expect(checkActionSteps([regexStep('^x')], big, lookup)).toMatchObject({ met: false, kind: 'limit', reason: expect.stringMatching(/calldata is \d+ bytes; at most 65536/) as unknown });
    expect(checkActionSteps([regexStep('^x')], big, lookup, { maxLogs: 500, maxCalldataBytes: 100_000 })).toMatchObject({ met: false, reason: expect.stringMatching(/longer than 1024/) as unknown });
    expect(deriveClaimant({ chainId: 1, signature: keyOf(deployClone), signatureType: 'function', fieldIndex: 1, targetContract: token }, big, lookup)).toBeUndefined();
    expect(deriveClaimant({ chainId: 1, signature: keyOf(deployClone), signatureType: 'function', fieldIndex: 1, targetContract: token }, named('x'), lookup)).toBe(token);
  });

  it('reads V2 criteria as the later SDK does: bigints only, packed paths; valueType does not scale', () => {
    const tx = named('x', { logs: [transferLog(7n)] });
    const criteria = (fieldIndex: number, valueType?: number): IncentiveCriteria => ({ criteriaType: 0, signature: keyOf(transferEvent), fieldIndex, targetContract: token, ...(valueType === undefined ? {} : { valueType }) });
    expect(criteriaAmount(criteria(2), tx, lookup)).toBe(7n);
    expect(criteriaAmount(criteria(2, 0), tx, lookup)).toBe(7n);
    expect(criteriaAmount(criteria(2, 1), tx, lookup)).toBe(7n);
    expect(criteriaAmount(criteria(0), tx, lookup)).toBe(BigInt(U1));
    expect(criteriaAmount(criteria(0, 1), tx, lookup)).toBeUndefined();
    expect(criteriaAmount(criteria(packFieldIndexes([2]), 1), tx, lookup)).toBe(7n);
    expect(criteriaAmount({ ...criteria(2), criteriaType: 2 }, tx, lookup)).toBeUndefined();
    expect(criteriaAmount({ ...criteria(255), signature: zeroHash }, { ...tx, gasUsed: 21_000n, effectiveGasPrice: 3n, blobGasUsed: 2n, blobGasPrice: 5n }, lookup)).toBe(63_010n);
    expect(criteriaAmount({ ...criteria(255), signature: zeroHash }, tx, lookup)).toBeUndefined();
  });

  it('answers no for a step or claimant on another chain', () => {
    const tx = named('x', { logs: [transferLog(7n)] });
    expect(checkActionSteps([{ ...anyTransfer, chainId: 8453 }], tx, lookup)).toMatchObject({ met: false, kind: 'action', reason: expect.stringMatching(/chain 8453/) as unknown });
    expect(deriveClaimant({ chainId: 8453, signature: zeroHash, signatureType: 'event', fieldIndex: 255, targetContract: zeroAddress }, tx, lookup)).toBeUndefined();
    expect(deriveClaimant({ chainId: 1, signature: zeroHash, signatureType: 'event', fieldIndex: 255, targetContract: zeroAddress }, tx, lookup)).toBe(U1);
  });
});
