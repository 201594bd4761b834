import type { ClaimantStanding, TrendingCampaignRow, TrendingIncentiveRow, TrendingPageRow } from '../repositories/trending.repository.js';
import type { TrendingEntry } from '../schemas/trending.js';
import { formatUnits, microsToNumber, usdMicrosOf } from './amounts.js';
import type { CampaignVolume } from '../claim-volumes/index.js';

/**
 * One trending or reward-kit entry from its rows: the body only the campaign's rows decide, the
 * asker's standing, the volumes, the token's market data. trending.ts lists them, entry-texts.ts
 * keeps their texts.
 */

/** What an entry says about the asker: their standing, and whether swap campaigns carry market data. */
export interface EntryOptions {
  claimant?: string;
  includeTokenMetadata: boolean;
}

/** The fields of an entry that neither the asker nor the clock changes: what the reward-kit operations keep built. */
export type EntryBody = Omit<TrendingEntry, keyof EntryStanding | keyof EntryVolumes | 'actionTokenMetadata'>;
type EntryStanding = Pick<TrendingEntry, 'status' | 'signature' | 'accessStatus'>;
type EntryVolumes = Pick<TrendingEntry, 'usdDistributed24Hr' | 'usdDistributed1Hr'>;

/** Everything an entry shows that only the campaign's rows decide. */
export function entryBody(row: TrendingPageRow): EntryBody {
  return {
    id: row.public_id,
    chainId: row.chain_id,
    incentives: row.incentives.map(toTrendingIncentive),
    actionTemplate:
      row.template_id === null
        ? null
        : {
            id: row.template_id,
            projectId: row.project_slug ?? '',
            actionType: row.action_type ?? '',
            projectImage: row.project_image ?? '',
            description: row.template_description ?? '',
            category: row.category as NonNullable<TrendingEntry['actionTemplate']>['category'],
          },
    txHash: row.tx_hash,
    campaignName: row.campaign_name,
    // Strings the public API's document declares non-nullable: left out when unknown, never null.
    ...present('nftImageUri', row.nft_image_uri),
    ...present('nftName', row.nft_name),
    ...present('tokenImageUri', row.token_image_uri),
    blockTimestamp: row.block_timestamp,
    ...present('projectUrl', row.project_url),
    startTime: row.start_time,
    endTime: row.end_time,
    claimCount: row.claim_count,
    ...rewardTokenTotals(row.incentives),
    verificationLevel: row.verification_level,
  };
}

/** The asker's standing: `status`, its claim `signature` and `accessStatus` (all about nobody without a claimant). */
export function entryStanding(standing: ClaimantStanding, allowListType: string | null, claimant: string | undefined): EntryStanding {
  return {
    status: standing.claimant_claimed ? 'claimed' : standing.signature !== null ? 'claimable' : 'active',
    signature:
      standing.signature === null || claimant === undefined
        ? null
        : {
            claimant,
            incentiveId: standing.signature_incentive_id ?? 0,
            signature: standing.signature,
            referrer: standing.signature_referrer ?? '',
          },
    accessStatus: claimant === undefined ? null : accessStatus(standing, allowListType),
  };
}

/** USD claimed in the last 24 hours and hour, at the request's instant. */
/** What an entry shows of its campaign's claim volumes. */
export type EntryVolume = Pick<CampaignVolume, 'usdMicros'>;

export function entryVolumes(volume: EntryVolume | undefined): EntryVolumes {
  return {
    // Not `volume.windows`: that builds every window's totals as objects, per entry.
    usdDistributed24Hr: volume === undefined ? 0 : microsToNumber(volume.usdMicros('24h')),
    usdDistributed1Hr: volume === undefined ? 0 : microsToNumber(volume.usdMicros('1h')),
  };
}

/** `{ [name]: value }`, or nothing when the value is unknown. */
function present<Name extends string>(name: Name, value: string | null): { [K in Name]?: string } {
  return (value === null ? {} : { [name]: value }) as { [K in Name]?: string };
}

/** The variants that pay no ERC-20 token. */
const NON_TOKEN_VARIANTS = new Set(['AllowListIncentive', 'PointsIncentive']);

/**
 * `totalBudget` and `rewardsDistributed`, as the public API means them: in the smallest unit of the
 * campaign's reward token (its first ERC-20 incentive's), summed over the incentives paying that token.
 */
function rewardTokenTotals(incentives: TrendingIncentiveRow[]): { totalBudget: string; rewardsDistributed: string } {
  const first = incentives.find((incentive) => !NON_TOKEN_VARIANTS.has(incentive.type));
  if (first === undefined) return { totalBudget: '0', rewardsDistributed: '0' };
  const asset = assetOf(first);
  let budget = 0n;
  let distributed = 0n;
  for (const incentive of incentives) {
    if (NON_TOKEN_VARIANTS.has(incentive.type) || assetOf(incentive) !== asset) continue;
    budget += BigInt(incentive.total_budget ?? '0');
    distributed += BigInt(incentive.total_amount_claimed);
  }
  return { totalBudget: budget.toString(), rewardsDistributed: distributed.toString() };
}

const assetOf = (incentive: TrendingIncentiveRow) =>
  typeof incentive.params.asset === 'string' ? incentive.params.asset.toLowerCase() : '';

/**
 * What each allow-list type means for the claimant: none or OpenAllowList, allowed; SimpleAllowList,
 * allowed if listed; SimpleDenyList, denied if listed; OffchainAccessList, allowed if a member.
 */
function accessStatus(standing: ClaimantStanding, allowListType: string | null): NonNullable<TrendingEntry['accessStatus']> {
  switch (allowListType) {
    case 'SimpleAllowList':
      return standing.claimant_listed ? 'allowed' : 'not-allowed';
    case 'SimpleDenyList':
      return standing.claimant_listed ? 'denied' : 'allowed';
    case 'OffchainAccessList':
      return standing.claimant_member ? 'allowed' : 'not-allowed';
    default: // none, or OpenAllowList
      return 'allowed';
  }
}

export function actionTokenMetadata(row: TrendingCampaignRow): TrendingEntry['actionTokenMetadata'] {
  if (row.action_token_address === null) return null;
  return {
    tokenSymbol: row.action_token_symbol ?? '',
    tokenContract: row.action_token_address,
    chainId: row.chain_id,
    tokenImage: row.action_token_image ?? '',
    decimals: row.action_token_decimals ?? 18,
    ...known('marketCap', row.action_token_market_cap),
    ...known('priceChange24Hr', row.action_token_price_change),
    ...known('volume24Hr', row.action_token_volume),
    ...known('priceUsd', row.action_token_price),
    ...known('holders', row.action_token_holders),
  };
}

/** `{ [name]: value }` when the value is known; nothing otherwise (the field is left out, never null). */
function known<Name extends string>(name: Name, value: number | null): { [Key in Name]?: number } {
  return value === null ? {} : ({ [name]: value } as { [Key in Name]?: number });
}

/** Decimals assumed for a token the service does not know: the EVM convention. */
const DEFAULT_DECIMALS = 18;

function toTrendingIncentive(row: TrendingIncentiveRow): TrendingEntry['incentives'][number] {
  const params = row.params;
  const text = (name: string) => (typeof params[name] === 'string' ? (params[name]) : undefined);
  const claimed = BigInt(row.total_amount_claimed);
  const remaining = row.total_budget === null ? 0n : max(BigInt(row.total_budget) - claimed, 0n);
  const { rewardAmount, maxReward } = rewardAmounts(row.type, text, remaining);
  const paysPoints = row.type === 'AllowListIncentive' || row.type === 'PointsIncentive';
  const decimals = row.token_decimals ?? (paysPoints ? 0 : DEFAULT_DECIMALS);
  const price = paysPoints ? null : row.token_price_usd;
  const percentage = rewardPercentage(row.type, text('reward'));
  return {
    type: row.type,
    assetAddress: text('asset') ?? text('allowListAddress') ?? text('venue') ?? '',
    // The share of the claim amount paid (0 to 100), for the variants that scale it; rebatePercentage is its alias.
    ...(percentage === undefined ? {} : { rewardPercentage: percentage, rebatePercentage: percentage }),
    rewardAmount: rewardAmount.toString(),
    rewardAmountFormatted: formatUnits(rewardAmount, decimals),
    maxReward: maxReward.toString(),
    maxRewardUsdValue: microsToNumber(usdMicrosOf(maxReward, decimals, price)),
    rewardUsdValue: microsToNumber(usdMicrosOf(rewardAmount, decimals, price)),
    // A token known only from its contract has no image, and may have no sensible symbol (both stored as '').
    ...present('tokenSymbol', row.token_symbol || null),
    ...present('tokenImageUri', row.token_image_uri || null),
    metadata:
      row.token_address === null
        ? null
        : {
            id: row.token_id ?? '',
            chainId: row.token_chain_id ?? 0,
            address: row.token_address,
            decimals: row.token_decimals ?? DEFAULT_DECIMALS,
            name: row.token_name ?? '',
            symbol: row.token_symbol ?? '',
            imageUri: row.token_image_uri ?? '',
          },
  };
}

/** The most one claim pays, per variant (see the TrendingIncentive schema). */
function rewardAmounts(type: string, text: (name: string) => string | undefined, remaining: bigint) {
  const amount = (name: string) => BigInt(text(name) ?? '0');
  switch (type) {
    case 'AllowListIncentive':
      return { rewardAmount: 1n, maxReward: 1n };
    case 'CGDAIncentive':
      return { rewardAmount: amount('initialReward'), maxReward: amount('initialReward') };
    case 'ERC20VariableIncentive':
      return { rewardAmount: remaining, maxReward: remaining };
    case 'ERC20VariableCriteriaIncentive':
    case 'ERC20VariableCriteriaIncentiveV2':
    case 'ERC20PeggedVariableCriteriaIncentive':
    case 'ERC20PeggedVariableCriteriaIncentiveV2':
      return { rewardAmount: amount('maxReward'), maxReward: amount('maxReward') };
    default: // ERC20Incentive, ERC20PeggedIncentive, PointsIncentive
      return { rewardAmount: amount('reward'), maxReward: amount('reward') };
  }
}

/** The variants whose `reward` is a scalar on the signed claim amount, 10^18 meaning 100%. */
const SCALING_VARIANTS = new Set([
  'ERC20VariableIncentive',
  'ERC20VariableCriteriaIncentive',
  'ERC20VariableCriteriaIncentiveV2',
  'ERC20PeggedVariableCriteriaIncentive',
  'ERC20PeggedVariableCriteriaIncentiveV2',
]);

/** `reward` / 10^18 in percent, exact to 2 decimals (rounded down); undefined for the fixed-reward variants. */
function rewardPercentage(type: string, reward: string | undefined): number | undefined {
  if (!SCALING_VARIANTS.has(type) || reward === undefined || !/^[0-9]+$/.test(reward)) return undefined;
  const basisPoints = (BigInt(reward) * 10_000n) / 10n ** 18n;
  return Number(basisPoints) / 100;
}

const max = (a: bigint, b: bigint) => (a > b ? a : b);
