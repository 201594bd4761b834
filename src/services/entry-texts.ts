import type { EntryVersionRow, TrendingPageRow, TrendingRepository } from '../repositories/trending.repository.js';
import type { TrendingEntry } from '../schemas/trending.js';
import type { ClaimWindows } from '../claim-volumes/index.js';
import type { BuiltEntry, EntryCache } from './entry-cache.js';
import type { JsonBytes } from '../json/json-bytes.js';
import { keptBytes } from '../json/kept-bytes.js';
import { actionTokenMetadata, type EntryOptions, entryBody, entryStanding, type EntryVolume, entryVolumes } from './trending-entries.js';

export interface EntryTextDeps {
  windows: ClaimWindows;
  trending: TrendingRepository;
  entries: EntryCache;
}

/** A trending entry as UTF-8 JSON (its kept head, then this request's fields), with the fields its callers compose their answers from. */
export interface DescribedEntry {
  head: Buffer;
  tail: string;
  status: TrendingEntry['status'];
  accessStatus: TrendingEntry['accessStatus'];
  verificationLevel: string | null;
  /** Each incentive's `rewardUsdValue`, by incentive ID. */
  rewardUsd: number[];
}

/**
 * The entries of campaigns `keys` at `now`, by key (a campaign deleted meanwhile has none). Only the
 * asker's standing and the claim volumes are decided per request; the rest of an entry is built
 * once and kept while trending_entry_versions() reports its rows unchanged, so a profile of a
 * hundred rewards reads a version per campaign instead of describing every one again.
 *
 * `volumeOf` gives the volumes a caller already read at one instant (trending's ranking); without
 * it they are read from the claim windows at `now`. `knownVersions` are `keys`' versions (with the
 * claimant's standing) when the caller read them with its own statement.
 */
export async function describeEntries(
  deps: EntryTextDeps,
  keys: number[],
  options: EntryOptions,
  now: Date,
  volumeOf?: (key: number) => EntryVolume | undefined,
  knownVersions?: EntryVersionRow[],
): Promise<Map<number, DescribedEntry>> {
  const described = new Map<number, DescribedEntry>();
  if (keys.length === 0) return described;
  const [volumes, versions] = await Promise.all([
    volumeOf ?? deps.windows.at(now).then((view) => (key: number) => view.volume(key)),
    knownVersions ?? deps.trending.entryVersions(keys, options.claimant),
  ]);
  const built = new Map<number, BuiltEntry>();
  const versionOf = new Map<number, string>();
  for (const row of versions) {
    const entry = deps.entries.get(row.key, row.version);
    if (entry === undefined) versionOf.set(row.key, row.version);
    else built.set(row.key, entry);
  }
  if (versionOf.size > 0) {
    // Read after the versions, so each row is at least as new as the version it is kept under: a
    // later request that still reports that version gets it, one that reports a newer one builds again.
    for (const row of await deps.trending.describeCampaigns([...versionOf.keys()], undefined)) {
      const entry = buildEntry(row, versionOf.get(row.key)!);
      built.set(row.key, entry);
      deps.entries.set(row.key, entry);
    }
  }
  for (const row of versions) {
    const entry = built.get(row.key);
    if (entry !== undefined) described.set(row.key, describe(entry, row, volumes(row.key), options));
  }
  return described;
}

/** Appends `entry`'s JSON to `json`. */
export function writeEntry(entry: DescribedEntry, json: JsonBytes): void {
  json.bytes(entry.head).text(entry.tail);
}

/** `keys`' entries in that order, leaving out campaigns without one. */
export function inOrder(keys: number[], described: Map<number, DescribedEntry>): DescribedEntry[] {
  return keys.flatMap((key) => {
    const entry = described.get(key);
    return entry === undefined ? [] : [entry];
  });
}

function buildEntry(row: TrendingPageRow, version: string): BuiltEntry {
  const body = entryBody(row);
  return {
    version,
    head: keptBytes(JSON.stringify(body).slice(0, -1)),
    tokenMetadata: row.action_type === 'swap' ? JSON.stringify(actionTokenMetadata(row)) : undefined,
    allowListType: row.allow_list_type,
    verificationLevel: row.verification_level,
    rewardUsd: body.incentives.map((incentive) => incentive.rewardUsdValue),
  };
}

function describe(
  entry: BuiltEntry,
  standing: EntryVersionRow,
  volume: EntryVolume | undefined,
  options: EntryOptions,
): DescribedEntry {
  const fields = entryStanding(standing, entry.allowListType, options.claimant);
  // Added to the standing, not spread with it into a new object: V8 promoted every object built by
  // spreading this many properties, and promoted objects raise peak RSS (docs/performance.md).
  const perRequest = JSON.stringify(Object.assign(fields, entryVolumes(volume))).slice(1, -1);
  const metadata =
    options.includeTokenMetadata && entry.tokenMetadata !== undefined ? `,"actionTokenMetadata":${entry.tokenMetadata}` : '';
  return {
    head: entry.head,
    tail: `,${perRequest}${metadata}}`,
    status: fields.status,
    accessStatus: fields.accessStatus,
    verificationLevel: entry.verificationLevel,
    rewardUsd: entry.rewardUsd,
  };
}
