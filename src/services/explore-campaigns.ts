import type { CampaignsRepository } from '../repositories/campaigns.repository.js';
import type { ContractsRepository } from '../repositories/contracts.repository.js';
import type { JsonText } from '../json/json-text.js';
import type { CampaignListItem } from '../schemas/campaigns.js';
import type { ClaimWindows } from '../claim-volumes/index.js';
import type { ExploreContractsRequest } from './explore-contracts.js';

/** The same filters, order and paging as explore contracts. */
export type ExploreCampaignsRequest = ExploreContractsRequest;

interface Ranked {
  key: number;
  /** The campaign's row in the claim windows, for its public ID. */
  row: number;
  measure: number;
}

/**
 * GET /explore: campaigns ranked by their claims (`most-completions`) or USD
 * claimed (`total-spend`) in the period, exact at the request's instant from the claim windows,
 * ties on ID; only campaigns with claims in the period rank. `recently-deployed`: every campaign,
 * newest first.
 */
export async function exploreCampaigns(
  windows: ClaimWindows,
  campaigns: CampaignsRepository,
  contracts: ContractsRepository,
  request: ExploreCampaignsRequest,
): Promise<{ items: JsonText<CampaignListItem>[]; total: number }> {
  const { page } = request;
  if (request.sortBy === 'recently-deployed') {
    const { keys, total } = await campaigns.listRecentKeys(request.chainIds, request.creator, page);
    return { items: await campaigns.listItemsByKeys(keys, request.now), total };
  }
  const [view, creatorCampaigns] = await Promise.all([
    windows.at(request.now),
    request.creator === undefined ? undefined : contracts.findCampaignKeysByCreator(request.creator),
  ]);
  const chains = request.chainIds === undefined ? undefined : new Set(request.chainIds);
  const byClaims = request.sortBy === 'most-completions';
  // Best first: the measure, then the public ID (binary order, as the database's "C" collation).
  const before = (a: Ranked, b: Ranked) => b.measure - a.measure || view.comparePublicIds(a.row, b.row);
  // One pass over the campaigns with claims in the period, keeping only the best `offset + limit`
  // in order (a page needs no more): linear in the campaigns, and nothing allocated for the rest.
  const wanted = page.offset + page.limit;
  const best: Ranked[] = [];
  let total = 0;
  view.forEachWithClaimsIn(request.timePeriod, (key, row, claims, usdMicros) => {
    if (creatorCampaigns !== undefined && !creatorCampaigns.has(key)) return;
    if (chains !== undefined && !view.onChain(row, chains)) return;
    total++;
    const measure = byClaims ? claims : usdMicros;
    if (wanted === 0) return;
    const last = best.length === wanted ? best[wanted - 1]! : undefined;
    if (last !== undefined && (measure < last.measure || (measure === last.measure && view.comparePublicIds(row, last.row) > 0))) return;
    const candidate = { key, row, measure };
    let at = best.length;
    while (at > 0 && before(candidate, best[at - 1]!) < 0) at--;
    best.splice(at, 0, candidate);
    if (best.length > wanted) best.pop();
  });
  const keys = best.slice(page.offset).map((ranked) => ranked.key);
  return { items: await campaigns.listItemsByKeys(keys, request.now), total };
}
