import type { ContractsRepository } from '../repositories/contracts.repository.js';
import type { PageRequest } from '../schemas/common.js';
import type { CONTRACT_SORTS, ContractEntry, TIME_PERIODS } from '../schemas/contracts.js';
import { microsToNumber } from './amounts.js';
import type { ClaimWindows, ContractVolume } from '../claim-volumes/index.js';

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
  // Sorted before the chains are kept: filtering keeps the order, and the sorted list is shared.
  const sorted = sortedVolumes(view.contracts(creatorCampaigns), request, creatorCampaigns === undefined);
  const volumes = chains === undefined ? sorted : sorted.filter((volume) => chains.has(volume.chainId));
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

/**
 * The volumes in the request's order. The claim windows hand out the same list of every contract
 * until a total changes, so its orders are kept with it, by its identity: between two claims,
 * explore requests share one sort per order instead of each sorting and describing every contract.
 */
const sortedByList = new WeakMap<readonly ContractVolume[], Map<string, readonly ContractVolume[]>>();

/**
 * Per order, the latest sort of the list of every contract. The next list (after a claim) holds the
 * same contracts at the same places, most of them the very same volumes: only the changed ones get a
 * new sort value, and the sort starts from the last order, which is nearly right (V8's TimSort takes
 * a nearly sorted array in about one pass). With claims streaming in this runs after every claim to
 * a named contract, on the request's path.
 */
interface LastSort {
  volumes: readonly ContractVolume[];
  values: Float64Array;
  positions: number[];
}
const lastSorts = new Map<string, LastSort>();

function sortedVolumes(volumes: readonly ContractVolume[], request: ExploreContractsRequest, everyContract: boolean): readonly ContractVolume[] {
  const order = `${request.sortBy} ${request.timePeriod}`;
  let sorts = sortedByList.get(volumes);
  const kept = sorts?.get(order);
  if (kept !== undefined) return kept;

  const primary = sortValue(request);
  const last = everyContract ? lastSorts.get(order) : undefined;
  const sameContracts = last !== undefined && holdSameContracts(last.volumes, volumes);
  // Each volume's sort value read once, not twice per comparison (and only the changed ones' again).
  const values = sameContracts ? last.values.slice() : new Float64Array(volumes.length);
  volumes.forEach((volume, position) => {
    if (!sameContracts || volume !== last.volumes[position]) values[position] = primary(volume);
  });
  const positions = sameContracts ? last.positions.slice() : Array.from(volumes.keys());
  positions.sort((a, b) => {
    if (values[a] !== values[b]) return values[a]! > values[b]! ? -1 : 1;
    const first = volumes[a]!;
    const second = volumes[b]!;
    if (first.chainId !== second.chainId) return first.chainId - second.chainId;
    return first.address < second.address ? -1 : first.address > second.address ? 1 : 0;
  });
  const sorted = positions.map((position) => volumes[position]!);
  if (everyContract) lastSorts.set(order, { volumes, values, positions });
  // A creator's list is made per request: kept with it, its sort goes when it does.
  if (sorts === undefined) sortedByList.set(volumes, (sorts = new Map<string, readonly ContractVolume[]>()));
  sorts.set(order, sorted);
  return sorted;
}

function sortValue({ sortBy, timePeriod }: ExploreContractsRequest): (volume: ContractVolume) => number {
  switch (sortBy) {
    case 'most-completions':
      return (volume) => volume.windows[timePeriod].claims;
    case 'total-spend':
      return (volume) => volume.windows[timePeriod].usdMicros;
    case 'recently-deployed':
      return (volume) => volume.newestBlockTimestamp;
  }
}

/** Whether two lists hold the same contracts in the same places (their volumes may differ). */
function holdSameContracts(before: readonly ContractVolume[], after: readonly ContractVolume[]): boolean {
  if (before.length !== after.length) return false;
  for (let position = 0; position < after.length; position++) {
    const a = before[position]!;
    const b = after[position]!;
    if (a !== b && (a.chainId !== b.chainId || a.address !== b.address)) return false;
  }
  return true;
}
