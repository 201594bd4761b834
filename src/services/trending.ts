import type { TrendingFilters } from '../repositories/trending.repository.js';
import type { PageRequest } from '../schemas/common.js';
import type { TrendingList } from '../schemas/trending.js';
import type { CampaignVolume, RankedWindow } from '../claim-volumes/index.js';
import { describeEntries, type EntryTextDeps, inOrder, writeEntry } from './entry-texts.js';
import { type JsonBuffer, JsonBytes } from '../json/json-bytes.js';

export interface TrendingRequest {
  period: RankedWindow;
  filters: TrendingFilters;
  claimant?: string;
  includeTokenMetadata: boolean;
  page: PageRequest;
  now: Date;
}

/**
 * The fewest ranked campaigns checked against the filters at once. The first batch is twice what
 * the page needs (most ranked campaigns pass the default filters); it doubles while the page is short.
 */
const MIN_BATCH = 20;

/**
 * Trending campaigns: active campaigns with claims in the period, by USD claimed in it (exact at the
 * request's instant, see ClaimWindows), highest first, ties on ID. The ranking comes from memory;
 * the database takes it batch by batch and says which campaigns pass the filters; the page's
 * entries are those the reward-kit operations show (entry-texts.ts): built once, kept while their
 * rows are unchanged, with the volumes of this request's ranking.
 */
export async function listTrending(deps: EntryTextDeps, request: TrendingRequest): Promise<JsonBuffer<TrendingList>> {
  const { page, period } = request;
  const json = new JsonBytes().text('{"trendingCampaigns":');
  if (page.limit === 0) return json.text('[]}').toBuffer();
  const view = await deps.windows.at(request.now);
  const end = page.offset + page.limit;
  const ranked = view.ranked(period);
  const onPage = new Map<number, CampaignVolume>();
  // The first batch is filtered with the versions of the page it would hold (one round trip): when
  // enough of it passes, as with most filters, those are the page's versions.
  const first = take(ranked, Math.max(MIN_BATCH, 2 * end));
  const volumeByKey = new Map(first.map((volume) => [volume.key, volume]));
  const { passing, versions } = await deps.trending.passingWithVersions(
    [...volumeByKey.keys()],
    request.filters,
    request.now,
    { from: page.offset, count: page.limit },
    request.claimant,
  );
  for (const key of passing.slice(page.offset, end)) onPage.set(key, volumeByKey.get(key)!);
  // Campaigns that passed the filters so far: the page starts at the `page.offset`th of them.
  let passed = passing.length;
  // Whether a later batch added to the page: then `versions` are not all of its versions.
  let laterOnPage = false;
  for (let batchSize = 2 * first.length; passed < end; batchSize *= 2) {
    const batch = take(ranked, batchSize);
    if (batch.length === 0) break;
    const passingBatch = new Set(await deps.trending.passingFilters(batch.map((volume) => volume.key), request.filters, request.now));
    for (const volume of batch) {
      if (!passingBatch.has(volume.key)) continue;
      if (passed >= page.offset && passed < end) {
        onPage.set(volume.key, volume);
        laterOnPage = true;
      }
      passed++;
    }
  }
  const keys = [...onPage.keys()];
  const described = await describeEntries(deps, keys, request, request.now, (key) => onPage.get(key), laterOnPage ? undefined : versions);
  return json.array(inOrder(keys, described), writeEntry).text('}').toBuffer();
}

function take<T>(iterator: Iterator<T>, count: number): T[] {
  const items: T[] = [];
  for (let next = iterator.next(); !next.done; next = iterator.next()) {
    items.push(next.value);
    if (items.length === count) break;
  }
  return items;
}
