import { parseAbi } from 'viem';

/**
 * The ABI fragments the indexer reads, declared from the protocol's sources (github.com/boostxyz/boost-protocol
 * at 7d8321d). Only what is read is declared.
 */

export const boostCoreEvents = parseAbi([
  'event BoostCreated(uint256 indexed boostId, address indexed owner, address indexed action, uint256 incentiveCount, address validator, address allowList, address budget)',
  'event IncentiveAdded(uint256 indexed boostId, uint256 indexed incentiveId, address indexed incentiveAddress, bool isNewBoost)',
  'event BoostClaimed(uint256 indexed boostId, uint256 indexed incentiveId, address indexed claimant, address referrer, bytes data)',
]);

/** Emitted by an incentive when it pays: data = asset or venue (20 bytes) ‖ recipient (20 bytes) ‖ amount (uint256). */
export const incentiveClaimedEvent = parseAbi(['event Claimed(address indexed recipient, bytes data)']);

export const boostCoreAbi = parseAbi([
  'struct Boost { address action; address validator; address allowList; address budget; address[] incentives; uint64 protocolFee; uint256 maxParticipants; address owner; }',
  'function getBoost(uint256 index) view returns (Boost)',
  'function getBoostCount() view returns (uint256)',
]);

/** createBoost(bytes): LibZip.cdCompress(abi.encode(CreateBoostPayload)). */
export const createBoostAbi = parseAbi(['function createBoost(bytes data_)']);
export const createBoostPayloadParameters = [
  {
    type: 'tuple',
    components: [
      { name: 'budget', type: 'address' },
      { name: 'action', type: 'tuple', components: targetComponents() },
      { name: 'validator', type: 'tuple', components: targetComponents() },
      { name: 'allowList', type: 'tuple', components: targetComponents() },
      { name: 'incentives', type: 'tuple[]', components: targetComponents() },
      { name: 'protocolFee', type: 'uint64' },
      { name: 'maxParticipants', type: 'uint256' },
      { name: 'owner', type: 'address' },
    ],
  },
] as const;

function targetComponents() {
  return [
    { name: 'isBase', type: 'bool' },
    { name: 'instance', type: 'address' },
    { name: 'parameters', type: 'bytes' },
  ] as const;
}

/** A SimpleAllowList's / SimpleDenyList's init parameters: abi.encode(address owner, address[] users). */
export const allowListInitParameters = [
  { name: 'owner', type: 'address' },
  { name: 'users', type: 'address[]' },
] as const;

export const componentAbi = parseAbi(['function getComponentInterface() view returns (bytes4)']);

export const incentiveAbi = parseAbi([
  'function asset() view returns (address)',
  'function strategy() view returns (uint8)',
  'function reward() view returns (uint256)',
  'function limit() view returns (uint256)',
  'function maxReward() view returns (uint256)',
  'function getMaxReward() view returns (uint256)',
  'function peg() view returns (address)',
  'function totalBudget() view returns (uint256)',
  'function cgdaParams() view returns (uint256 rewardDecay, uint256 rewardBoost, uint256 lastClaimTime, uint256 currentReward)',
  'function venue() view returns (address)',
  'function selector() view returns (bytes4)',
  'function allowList() view returns (address)',
]);

/** getIncentiveCriteria(): V1 returns 4 words, V2 adds valueType (5 words); both share one interface id. */
export const criteriaSelector = '0xa871ced2';
export const criteriaV1Parameters = [
  {
    type: 'tuple',
    components: [
      { name: 'criteriaType', type: 'uint8' },
      { name: 'signature', type: 'bytes32' },
      { name: 'fieldIndex', type: 'uint32' },
      { name: 'targetContract', type: 'address' },
    ],
  },
] as const;
export const criteriaV2Parameters = [
  {
    type: 'tuple',
    components: [...criteriaV1Parameters[0].components, { name: 'valueType', type: 'uint8' }],
  },
] as const;

export const actionAbi = parseAbi([
  'struct Criteria { uint8 filterType; uint8 fieldType; uint32 fieldIndex; bytes filterData; }',
  'struct ActionStep { bytes32 signature; uint8 signatureType; uint8 actionType; address targetContract; uint256 chainid; Criteria actionParameter; }',
  'struct ActionClaimant { uint8 signatureType; bytes32 signature; uint32 fieldIndex; address targetContract; uint256 chainid; }',
  'function getActionSteps() view returns (ActionStep[])',
  'function getActionClaimant() view returns (ActionClaimant)',
]);

export const ownerAbi = parseAbi(['function owner() view returns (address)']);

/** getComponentInterface() ids (chain-facts.md §2-4). */
export const INTERFACE_IDS = {
  AllowListIncentive: '0xc2c281ec',
  CGDAIncentive: '0x53cf8555',
  ERC20Incentive: '0x7cc1d5bb',
  ERC20PeggedIncentive: '0x56586338',
  ERC20VariableIncentive: '0x90318111',
  PointsIncentive: '0x0d36a40d',
  ERC20VariableCriteriaIncentive: '0x52b8e45c',
  ERC20PeggedVariableCriteriaIncentive: '0xf60c99c9',
  EventAction: '0x7687b0ed',
  SimpleAllowList: '0x1392d798',
  SimpleDenyList: '0x3d30a22c',
  OffchainAccessList: '0x2a6b3c38',
} as const;

/** What an owner (or a manager of a SimpleAllowList) edits a list with; neither emits an event. */
export const allowListEditAbi = parseAbi([
  'function setAllowed(address[] users_, bool[] allowed_)',
  'function setDenied(address[] users_, bool[] denied_)',
]);
