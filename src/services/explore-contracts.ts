import type { ContractsRepository } from '../repositories/contracts.repository.js';
import type { PageRequest } from '../schemas/common.js';
import type { CONTRACT_SORTS, ContractEntry, TIME_PERIODS } from '../schemas/contracts.js';
import { microsToNumber } from './amounts.js';
import type { ContractVolume } from './claim-volume-state.js';
import type { ClaimWindows } from './claim-windows.js';

export interface ExploreContractsRequest {
  sortBy: (typeof CONTRACT_SORTS)[number];
  timePeriod: (typeof TIME_PERIODS)[number];
  chainIds?: number[];
  creator?: string;
  page: PageRequest;
  now: Date;
}

/**
 * The named contracts campaigns target, with their campaigns and the claims of those campaigns in
 * the time period (exact at the request's instant), sorted, ties on chain id then address.
 */
export async function exploreContracts(
  windows: ClaimWindows,
  repository: ContractsRepository,
  request: ExploreContractsRequest,
): Promise<ContractEntry[]> {
  const [view, creatorCampaigns] = await Promise.all([
    windows.at(request.now),
    request.creator === undefined ? undefined : repository.findCampaignKeysByCreator(request.creator),
  ]);
  const chains = request.chainIds === undefined ? undefined : new Set(request.chainIds);
  const volumes = view
    .contracts(creatorCampaigns)
    .filter((volume) => chains === undefined || chains.has(volume.chainId));
  volumes.sort(compareBy(request));
  return volumes.slice(request.page.offset, request.page.offset + request.page.limit).map((volume) => ({
    chainId: volume.chainId,
    address: volume.address,
    name: volume.name,
    stats: {
      campaignCount: volume.campaignCount,
      totalClaims: volume.windows[request.timePeriod].claims,
      totalAmountClaimedUsd: microsToNumber(volume.windows[request.timePeriod].usdMicros),
    },
  }));
}

function compareBy({ sortBy, timePeriod }: ExploreContractsRequest) {
  const primary = (volume: ContractVolume): number => {
    switch (sortBy) {
      case 'most-completions':
        return volume.windows[timePeriod].claims;
      case 'total-spend':
        return volume.windows[timePeriod].usdMicros;
      case 'recently-deployed':
        return volume.newestBlockTimestamp;
    }
  };
  return (a: ContractVolume, b: ContractVolume): number => {
    const left = primary(a);
    const right = primary(b);
    if (left !== right) return left > right ? -1 : 1;
    if (a.chainId !== b.chainId) return a.chainId - b.chainId;
    return a.address < b.address ? -1 : a.address > b.address ? 1 : 0;
  };
}
