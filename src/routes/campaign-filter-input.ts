import type { Static } from '@sinclair/typebox';
import { badRequest } from '../errors.js';
import type { CampaignFilters, TokenFilter } from '../repositories/campaign-filters.js';
import type { TrendingFilters } from '../repositories/trending.repository.js';
import type { CampaignFilterQuery } from '../schemas/campaigns.js';
import { MAX_CHAIN_ID } from '../schemas/common.js';

type FilterQuery = { [Name in keyof typeof CampaignFilterQuery]?: Static<(typeof CampaignFilterQuery)[Name]> };

/**
 * The validated filter parameters as the repositories take them: addresses and channel names in
 * lowercase (both are compared case-insensitively), token entries parsed.
 */
export function campaignFiltersFrom(query: FilterQuery): CampaignFilters {
  return {
    budgetAccounts: query.budgetAccount?.map((address) => address.toLowerCase()),
    owner: query.owner?.toLowerCase(),
    autocampaignId: query.autocampaignId,
    chainId: query.chainId,
    targetContract: query.targetContract?.toLowerCase(),
    tokens: query.tokens?.map(parseTokenFilter),
    distributionChannels: query.distributionChannel?.map((channel) => channel.toLowerCase()),
    tokenWhitelist: query.tokenWhitelist ?? true,
  };
}

/** What trending and the reward-kit operations filter on: the campaign filters, the creator and the action types. */
export function trendingFiltersFrom(
  query: FilterQuery & { creatorAddress?: string; actionType?: string[]; excludeActionType?: string[] },
): TrendingFilters {
  // Added to the campaign filters, not spread with them into a new object (see docs/design.md).
  return Object.assign(campaignFiltersFrom(query), {
    creator: query.creatorAddress?.toLowerCase(),
    actionTypes: query.actionType,
    excludedActionTypes: query.excludeActionType,
  });
}

/** `<chain_id>:<address>[:collection]`, already matched against its pattern by the schema. */
export function parseTokenFilter(entry: string, index: number): TokenFilter {
  const [chain = '', address = '', kind] = entry.split(':');
  const chainId = Number(chain);
  if (chainId > MAX_CHAIN_ID) throw badRequest(`tokens entry ${index + 1} has a chain id above ${MAX_CHAIN_ID}`);
  return { chainId, address: address.toLowerCase(), collection: kind === 'collection' };
}

/** The stored form of a campaign ID: decimal numbers without leading zeros, the address in lowercase. */
export function normaliseCampaignId(id: string): string {
  const [chain = '', address = '', identifier = ''] = id.split(':');
  return `${BigInt(chain)}:${address.toLowerCase()}:${BigInt(identifier)}`;
}
