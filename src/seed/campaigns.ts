import { ALLOW_LIST_TYPES, type ActionStepParameters, INCENTIVE_TYPES } from '../db/schema.js';
import type { IncentiveType } from '../schemas/incentives.js';
import { CHAINS, DISTRIBUTION_CHANNELS, EVENT_SIGNATURES, FUNCTION_SIGNATURES, HUGE_AMOUNT_TOKEN_SYMBOL } from './catalog.js';
import type { Random } from './random.js';
import { capitalize, HOUR_MS, type Reference, type Template, type Token } from './reference.js';
import type { Rows } from './rows.js';

/**
 * One campaign with everything that hangs off it. The generator also returns what the claim
 * generator needs to stay consistent: each incentive's capacity and pricing, and the time window
 * in which the campaign can be claimed.
 */
export interface GeneratedCampaign {
  rows: Pick<Rows, 'allowLists' | 'allowListAddresses' | 'campaigns' | 'incentives' | 'actionSteps' | 'claimSignatures'>;
  claimTarget: ClaimTarget;
}

export interface ClaimTarget {
  key: number;
  chainId: number;
  /** Claims can happen from here ... */
  opensAt: number;
  /** ... until here (ms since epoch). */
  closesAt: number;
  /** Paid out to the last unit by the claim generator. */
  soldOut: boolean;
  incentives: IncentiveCapacity[];
}

export interface IncentiveCapacity {
  position: number;
  /** Remaining number of claims, for count-limited variants. */
  remainingClaims: bigint | null;
  /** Remaining amount, for budget-limited variants. */
  remainingBudget: bigint | null;
  /** The amount one claim pays when it is fixed. */
  fixedAmount: bigint | null;
  /** Upper bound of one claim when it varies. */
  maxAmount: bigint;
  decimals: number;
  priceUsd: number | null;
}

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
const DAY_MS = 24 * HOUR_MS;
const WAD = 10n ** 18n;

const chainIds = CHAINS.map((chain) => chain.id);
const chainWeights = CHAINS.map((chain) => chain.weight);
const INCENTIVE_COUNT_WEIGHTS = [60, 30, 10];
const STEP_COUNT_WEIGHTS = [60, 30, 10];

export interface CampaignContext {
  reference: Reference;
  now: number;
  /** Per chain: the campaign core contracts (two versions per chain, as on chain). */
  cores: Map<number, string[]>;
  validators: Map<number, string[]>;
  pointsVenues: Map<number, string[]>;
  /** Campaign owners and the budget account each of them funds campaigns from. */
  owners: { owner: string; budget: string }[];
  nextCampaignIndex: Map<string, bigint>;
  usedIdentifiers: Set<string>;
  nextAllowListId: number;
  lastBlockTimestamp: number;
}

export function createCampaignContext(random: Random, reference: Reference, campaignCount: number, now: number) {
  const perChain = (count: number) => new Map(chainIds.map((id) => [id, Array.from({ length: count }, () => random.address())]));
  const ownerCount = Math.max(20, Math.round(campaignCount / 8));
  const owners = Array.from({ length: ownerCount }, (_, index) => ({
    // A third of the owners are users of the service, so their addresses show up on both sides.
    owner: index % 3 === 0 ? random.pick(reference.users).address : random.address(),
    budget: random.address(),
  }));
  return {
    reference,
    now,
    cores: perChain(2),
    validators: perChain(3),
    pointsVenues: perChain(4),
    owners,
    nextCampaignIndex: new Map(),
    usedIdentifiers: new Set<string>(),
    nextAllowListId: 1,
    lastBlockTimestamp: 0,
  } satisfies CampaignContext;
}

export function generateCampaign(random: Random, context: CampaignContext, key: number, total: number): GeneratedCampaign {
  const { reference, now } = context;
  const chainId = random.weighted(chainIds, chainWeights);
  const coreAddress = random.pick(context.cores.get(chainId)!);
  const campaignIndex = nextIndex(context, `${chainId}:${coreAddress}`);
  const identifier = uniqueIdentifier(random, context);
  const { owner, budget } = random.pick(context.owners);
  const creator = random.chance(0.8) ? owner : random.pick(reference.users).address;

  // Newer keys are more recent; a tenth share a block (equal timestamps) with the previous campaign.
  const ageMs = Math.floor(((total - key) / total) * 365 * DAY_MS * random.next() ** 0.5);
  const blockTime = Math.floor((now - ageMs) / 1000);
  const blockTimestamp = context.lastBlockTimestamp > 0 && random.chance(0.1) ? context.lastBlockTimestamp : blockTime;
  context.lastBlockTimestamp = blockTimestamp;
  const createdAt = blockTimestamp * 1000;

  const { startTime, endTime } = campaignWindow(random, createdAt, now);
  const template = random.chance(0.7) ? random.pick(reference.templates) : null;
  const soldOut = random.chance(0.04);

  const steps = generateActionSteps(random, context, chainId, template);
  const firstTarget = steps[0]!.targetContract;
  const chainTokens = reference.tokens.filter((token) => token.chainId === chainId);
  const incentiveTypes = chooseIncentiveTypes(random, key);
  const incentives = incentiveTypes.map((type, position) =>
    generateIncentive(random, context, { type, position, chainId, chainTokens, firstTarget, soldOut, key }),
  );

  const allowList = generateAllowList(random, context, chainId, owner);
  const nftCampaign = template?.category === 'nft';
  const firstToken = incentives.map((incentive) => incentive.token).find((token) => token !== undefined);

  const signatures: Rows['claimSignatures'] = [];
  if (random.chance(0.3)) {
    for (const user of random.sample(reference.users, random.int(1, 4))) {
      signatures.push({
        campaignKey: key,
        claimant: user.address,
        incentiveId: random.int(0, incentives.length - 1),
        signature: `0x${random.hex(65)}`,
        referrer: random.chance(0.5) ? ZERO_ADDRESS : random.pick(reference.users).address,
        used: random.chance(0.5),
      });
    }
  }

  const campaign: Rows['campaigns'][number] = {
    key,
    chainId,
    coreAddress,
    identifier,
    campaignIndex: campaignIndex.toString(),
    owner,
    creator,
    budget,
    validator: random.pick(context.validators.get(chainId)!),
    action: random.address(),
    protocolFee: random.pick(['0', '1000', '2500', '5000']),
    maxParticipants: random.pick(['0', '100', '1000', '10000', '1000000']),
    blockTimestamp,
    blockNumber: blockNumberAt(chainId, blockTimestamp),
    txHash: `0x${random.hex(32)}`,
    startTime: startTime === null ? null : new Date(startTime),
    endTime: endTime === null ? null : new Date(endTime),
    distributionChannels: random.sample(DISTRIBUTION_CHANNELS, random.weighted([0, 1, 2, 3], [20, 40, 30, 10])),
    autocampaignId: random.chance(0.1) ? `ac-${random.int(1, Math.max(2, Math.round(total / 50)))}` : null,
    templateId: random.chance(0.2) ? random.uuid() : null,
    actionTemplateId: template?.id ?? null,
    allowListId: allowList?.row.id ?? null,
    campaignName: template ? `${capitalize(template.actionType)} on ${template.projectName}` : `Custom campaign #${key}`,
    nftImageUri: nftCampaign ? `https://assets.example.com/nft/${key}.png` : null,
    nftName: nftCampaign ? `${template.projectName} Edition #${campaignIndex}` : null,
    nftMetadataId: nftCampaign ? random.uuid() : null,
    projectImageUri: template?.projectImageUri ?? null,
    tokenImageUri: firstToken ? `https://assets.example.com/tokens/${firstToken.symbol.toLowerCase()}.png` : null,
    actionClaimant: random.chance(0.85)
      ? {
          signature: steps[0]!.signature,
          signatureName: steps[0]!.signatureName,
          signatureType: steps[0]!.signatureType as 'event' | 'function',
          fieldIndex: random.int(0, 3),
          targetContract: firstTarget,
          chainId,
        }
      : null,
    actionTokenAddress: template?.actionType === 'swap' && chainTokens.length > 0 ? random.pick(chainTokens).address : null,
    // Every campaign starts with unclaimed incentives. The incentive trigger computes the flag again
    // and, finding it right, leaves the row alone instead of rewriting every campaign once more.
    hasBudgetLeft: true,
  };

  const closesAt = Math.min(now, endTime ?? now);
  return {
    rows: {
      allowLists: allowList ? [allowList.row] : [],
      allowListAddresses: allowList?.addresses ?? [],
      campaigns: [campaign],
      incentives: incentives.map((incentive) => incentive.row),
      actionSteps: steps.map((step, position) => ({ ...step, campaignKey: key, position })),
      claimSignatures: signatures,
    },
    claimTarget: {
      key,
      chainId,
      opensAt: Math.max(createdAt, startTime ?? createdAt),
      closesAt,
      soldOut,
      incentives: incentives.map((incentive) => incentive.capacity),
    },
  };
}

function campaignWindow(random: Random, createdAt: number, now: number) {
  const startRoll = random.next();
  const startTime =
    startRoll < 0.15
      ? null
      : startRoll < 0.65
        ? createdAt
        : startRoll < 0.73
          ? now + random.int(1, 30 * 24) * HOUR_MS // not started yet
          : createdAt + Math.floor(random.next() * (now - createdAt));
  const endRoll = random.next();
  const from = Math.max(startTime ?? createdAt, createdAt);
  const endTime =
    endRoll < 0.4
      ? null
      : endRoll < 0.52 && from < now
        ? from + Math.floor(random.next() * (now - from)) // ended already
        : Math.max(from, now) + random.int(1, 90 * 24) * HOUR_MS;
  return { startTime, endTime };
}

/** The first ten campaigns carry the ten variants, so even a tiny data set has all of them. */
function chooseIncentiveTypes(random: Random, key: number): IncentiveType[] {
  const count = random.weighted([1, 2, 3], INCENTIVE_COUNT_WEIGHTS);
  const types = Array.from({ length: count }, () => random.weighted(INCENTIVE_TYPES, INCENTIVE_TYPE_WEIGHTS));
  if (key <= INCENTIVE_TYPES.length) types[0] = INCENTIVE_TYPES[key - 1]!;
  return types;
}

const INCENTIVE_TYPE_WEIGHTS = [6, 4, 30, 10, 10, 8, 10, 8, 6, 8];

interface IncentiveInput {
  type: IncentiveType;
  position: number;
  chainId: number;
  chainTokens: Token[];
  firstTarget: string;
  soldOut: boolean;
  key: number;
}

function generateIncentive(random: Random, context: CampaignContext, input: IncentiveInput) {
  const { type, position, chainId, chainTokens, firstTarget, soldOut } = input;
  const hugeToken = chainTokens.find((token) => token.symbol === HUGE_AMOUNT_TOKEN_SYMBOL);
  const useHuge = hugeToken !== undefined && random.chance(0.01);
  const token = pickAssetToken(random, chainTokens, useHuge ? hugeToken : undefined);
  const asset = token?.address ?? random.address();
  const decimals = token?.decimals ?? 18;
  const priceUsd = token?.priceUsd ?? null;
  // Rewards are sized in dollars where the token has a price, so a claim is worth $1-$500 whatever the token.
  const units = (usd: number) => toUnits(priceUsd ? usd / priceUsd : usd, decimals);
  const claimCount = () => BigInt(soldOut ? random.int(2, 12) : random.int(50, 5000));
  const criteria = (withValueType: boolean) => {
    const signatureType = random.chance(0.5) ? 'event' : 'function';
    return {
      criteriaType: signatureType === 'event' ? 1 : 0,
      signature: signatureType === 'event' ? `0x${random.hex(32)}` : `0x${random.hex(4)}`,
      fieldIndex: random.int(0, 4),
      targetContract: firstTarget,
      ...(withValueType ? { valueType: random.int(0, 1) } : {}),
    };
  };
  const rebate = () => (random.chance(0.4) ? { rebatePercentage: random.pick([5, 10, 12.5, 25, 50]) } : {});
  const maxPerClaim = useHuge ? huge(random, 76) : units(random.pick([5, 10, 25, 100, 500]));
  const budget = useHuge ? huge(random, 78) : soldOut ? maxPerClaim * BigInt(random.int(2, 8)) : maxPerClaim * claimCount();

  let params: Record<string, unknown>;
  let capacity: Omit<IncentiveCapacity, 'position' | 'decimals' | 'priceUsd'>;
  switch (type) {
    case 'AllowListIncentive': {
      const limit = claimCount();
      params = { allowListAddress: random.address(), limit: limit.toString() };
      capacity = { remainingClaims: limit, remainingBudget: null, fixedAmount: 1n, maxAmount: 1n };
      break;
    }
    case 'PointsIncentive': {
      const limit = useHuge ? BigInt(huge(random, 78)) : claimCount();
      const reward = BigInt(random.pick([10, 25, 50, 100, 1000]));
      params = {
        venue: random.pick(context.pointsVenues.get(chainId)!),
        selector: `0x${random.hex(4)}`,
        reward: reward.toString(),
        limit: limit.toString(),
      };
      capacity = { remainingClaims: limit, remainingBudget: null, fixedAmount: reward, maxAmount: reward };
      break;
    }
    case 'ERC20Incentive': {
      const limit = claimCount();
      const reward = useHuge ? huge(random, 70) : units(random.pick([1, 2, 5, 10, 20, 50]));
      const raffle = random.chance(0.1);
      params = { asset, strategy: raffle ? 1 : 0, reward: reward.toString(), limit: limit.toString() };
      // A RAFFLE's claims are entries of amount 0; its one prize is paid at a draw, which the seed leaves undrawn.
      capacity = { remainingClaims: limit, remainingBudget: null, fixedAmount: raffle ? 0n : reward, maxAmount: raffle ? 0n : reward };
      break;
    }
    case 'CGDAIncentive': {
      const initialReward = maxPerClaim;
      params = {
        asset,
        initialReward: initialReward.toString(),
        rewardDecay: (initialReward / 100n).toString(),
        rewardBoost: (initialReward / 1000n).toString(),
        totalBudget: budget.toString(),
      };
      capacity = { remainingClaims: null, remainingBudget: budget, fixedAmount: null, maxAmount: initialReward };
      break;
    }
    case 'ERC20VariableIncentive': {
      params = { asset, reward: random.pick(SCALARS).toString(), limit: budget.toString() };
      capacity = { remainingClaims: null, remainingBudget: budget, fixedAmount: null, maxAmount: maxPerClaim };
      break;
    }
    case 'ERC20VariableCriteriaIncentive':
    case 'ERC20VariableCriteriaIncentiveV2': {
      params = {
        asset,
        reward: random.pick(SCALARS).toString(),
        limit: budget.toString(),
        maxReward: maxPerClaim.toString(),
        criteria: criteria(type === 'ERC20VariableCriteriaIncentiveV2'),
        ...rebate(),
      };
      capacity = { remainingClaims: null, remainingBudget: budget, fixedAmount: null, maxAmount: maxPerClaim };
      break;
    }
    case 'ERC20PeggedIncentive': {
      const reward = maxPerClaim;
      params = { asset, peg: pegAddress(random, chainTokens), reward: reward.toString(), limit: budget.toString() };
      capacity = { remainingClaims: null, remainingBudget: budget, fixedAmount: reward, maxAmount: reward };
      break;
    }
    case 'ERC20PeggedVariableCriteriaIncentive':
    case 'ERC20PeggedVariableCriteriaIncentiveV2': {
      params = {
        asset,
        peg: pegAddress(random, chainTokens),
        reward: random.pick(SCALARS).toString(),
        limit: budget.toString(),
        maxReward: maxPerClaim.toString(),
        criteria: criteria(type === 'ERC20PeggedVariableCriteriaIncentiveV2'),
        ...rebate(),
      };
      capacity = { remainingClaims: null, remainingBudget: budget, fixedAmount: null, maxAmount: maxPerClaim };
      break;
    }
  }
  const paysToken = type !== 'AllowListIncentive' && type !== 'PointsIncentive';
  return {
    row: { campaignKey: input.key, position, type, params },
    capacity: { ...capacity, position, decimals: paysToken ? decimals : 0, priceUsd: paysToken ? priceUsd : null },
    token: paysToken ? token : undefined,
  };
}

/** Mostly whitelisted tokens; a few off the whitelist and a few no one has heard of (no metadata). */
function pickAssetToken(random: Random, chainTokens: Token[], forced: Token | undefined): Token | undefined {
  if (forced) return forced;
  const roll = random.next();
  if (roll < 0.015) return undefined;
  const pool = chainTokens.filter((token) => token.isWhitelisted === roll >= 0.045 && token.symbol !== HUGE_AMOUNT_TOKEN_SYMBOL);
  return pool.length > 0 ? random.pick(pool) : random.pick(chainTokens);
}

function pegAddress(random: Random, chainTokens: Token[]): string {
  const usdc = chainTokens.find((token) => token.symbol === 'USDC');
  return random.chance(0.5) || !usdc ? ZERO_ADDRESS : usdc.address;
}

/** Multipliers as WAD (1e18 = 1.0). */
const SCALARS = [WAD, WAD / 2n, WAD / 10n, 2n * WAD];

function generateActionSteps(random: Random, context: CampaignContext, chainId: number, template: Template | null) {
  const count = random.weighted([1, 2, 3], STEP_COUNT_WEIGHTS);
  return Array.from({ length: count }, () => {
    const signatureType = random.chance(0.6) ? 'event' : 'function';
    const targetRoll = random.next();
    const targetContract =
      template?.category === 'nft' || targetRoll < 0.15
        ? random.pick(context.reference.collections.get(chainId)!)
        : targetRoll < 0.9
          ? random.pick(context.reference.projectContracts.get(chainId)!)
          : random.address();
    const parameters: ActionStepParameters = {
      filterType: random.int(0, 6),
      fieldType: random.int(0, 3),
      fieldIndex: random.int(0, 5),
      filterData: `0x${random.hex(random.pick([20, 32]))}`,
    };
    return {
      chainId,
      targetContract,
      claimant: random.chance(0.2) ? random.address() : null,
      signature: signatureType === 'event' ? `0x${random.hex(32)}` : `0x${random.hex(4)}`,
      signatureName: random.pick(signatureType === 'event' ? EVENT_SIGNATURES : FUNCTION_SIGNATURES),
      signatureType,
      actionType: random.int(0, 3),
      parameters,
    };
  });
}

function generateAllowList(random: Random, context: CampaignContext, chainId: number, owner: string) {
  const roll = random.next();
  if (roll < 0.35) return null;
  const type = random.weighted(ALLOW_LIST_TYPES, [20, 10, 25, 10]);
  const id = context.nextAllowListId++;
  const row: Rows['allowLists'][number] = {
    id,
    chainId,
    contractAddress: random.address(),
    owner,
    type,
    accessListId: type === 'OffchainAccessList' ? random.pick(context.reference.accessListIds) : null,
  };
  const listed = type === 'SimpleAllowList' || type === 'SimpleDenyList';
  const addresses = listed
    ? random.sample(context.reference.users, random.int(3, 10)).map((user) => ({ allowListId: id, address: user.address }))
    : [];
  return { row, addresses };
}

function nextIndex(context: CampaignContext, core: string): bigint {
  const index = context.nextCampaignIndex.get(core) ?? 0n;
  context.nextCampaignIndex.set(core, index + 1n);
  return index;
}

/** Identifiers are uint256 values, so real campaign IDs run well past 100 characters. */
function uniqueIdentifier(random: Random, context: CampaignContext): string {
  for (;;) {
    const identifier = huge(random, random.int(76, 77)).toString();
    if (!context.usedIdentifiers.has(identifier)) {
      context.usedIdentifiers.add(identifier);
      return identifier;
    }
  }
}

/** A random integer of `digits` digits that stays below 2^256 (78 digits start with "10"). */
function huge(random: Random, digits: number): bigint {
  return BigInt(digits >= 78 ? `10${random.digits(digits - 2)}` : random.digits(digits));
}

/** `human` whole tokens in base units, exactly (no float scaling of the result). */
export function toUnits(human: number, decimals: number): bigint {
  return (BigInt(Math.round(human * 1_000_000)) * 10n ** BigInt(decimals)) / 1_000_000n;
}

const GENESIS: Record<number, { time: number; blockSeconds: number }> = {
  1: { time: 1438269973, blockSeconds: 12 },
  10: { time: 1636665385, blockSeconds: 2 },
  8453: { time: 1686789347, blockSeconds: 2 },
  42161: { time: 1622240000, blockSeconds: 0.25 },
  7777777: { time: 1686693839, blockSeconds: 2 },
};

function blockNumberAt(chainId: number, unixSeconds: number): number {
  const genesis = GENESIS[chainId] ?? { time: 1600000000, blockSeconds: 2 };
  return Math.max(1, Math.floor((unixSeconds - genesis.time) / genesis.blockSeconds));
}
