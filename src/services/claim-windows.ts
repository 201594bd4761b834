import type { Logger } from 'pino';
import {
  CLAIM_WINDOWS,
  type ClaimChangeRow,
  type ClaimWindow,
  type ClaimWindowsRepository,
  type TargetedContractRow,
  WINDOW_NAMES,
} from '../repositories/claim-windows.repository.js';
import { parseMicros } from './amounts.js';

/**
 * Claim volumes per campaign over the trailing windows (1h, 6h, 24h, 7d), exact at any instant.
 *
 * A plain aggregation over a million claims per request is what this avoids. Instead a snapshot
 * aggregates every window once (at most every `refreshMs`, in the background), and each request
 * corrects it with the few claims whose window membership changed since:
 * - claims that left a window (or were in the future) since the snapshot: the snapshot loaded every
 *   claim that can do so within its horizon (`HORIZON_REFRESHES` refresh periods), so these
 *   corrections cost no query; a snapshot older than its horizon is rebuilt before answering;
 * - claims inserted after the snapshot, found by claim id (so a late-arriving claim, made before the
 *   snapshot, counts at once): one primary-key range query per request, normally short or empty.
 * The result equals the plain aggregation at the request's instant; the snapshot only decides how
 * much correcting a request does. What the snapshot alone decides is which named contracts each
 * campaign targets (explore contracts): that map is reread when `campaign_set_version` changes
 * (campaigns, their steps or the contract registry), so a change shows within one refresh.
 *
 * USD amounts are integers of micro-dollars held in doubles: exact up to 2^53 micro-dollars (about
 * $9 billion per campaign and window). The snapshot is kept in typed arrays, column by column, so
 * that a hundred thousand campaigns cost a few megabytes rather than a few hundred.
 */
export interface WindowTotals {
  claims: number;
  usdMicros: number;
}

export interface CampaignVolume {
  key: number;
  publicId: string;
  windows: Record<ClaimWindow, WindowTotals>;
}

export interface ContractVolume {
  chainId: number;
  address: string;
  name: string;
  campaignCount: number;
  newestBlockTimestamp: number;
  windows: Record<ClaimWindow, WindowTotals>;
}

/** Per window, one column of claim counts and one of USD volumes. */
interface Columns {
  claims: Record<ClaimWindow, Int32Array>;
  usd: Record<ClaimWindow, Float64Array>;
}

interface CampaignTable extends Columns {
  keys: Int32Array;
  publicIds: string[];
  rowOf: Map<number, number>;
}

interface ContractTable extends Columns {
  chainIds: Int32Array;
  addresses: string[];
  names: string[];
  /** The targeting campaigns of contract i are campaignKeys[starts[i]..starts[i + 1]). */
  starts: Int32Array;
  campaignKeys: Int32Array;
  blockTimestamps: Float64Array;
  newest: Float64Array;
  /** Contract rows each campaign targets. */
  byCampaign: Map<number, number[]>;
}

interface Snapshot {
  at: number;
  /** Until when the edge claims cover every change to the counted claims' window membership. */
  coveredUntil: number;
  maxClaimId: string;
  version: string;
  edges: ClaimChangeRow[];
  campaigns: CampaignTable;
  /** Per window, rows of the campaigns with claims in it, by USD volume (highest first), ties on public ID. */
  rankings: Record<ClaimWindow, Int32Array>;
  contracts: ContractTable;
}

export interface ClaimWindowsOptions {
  /** How old a snapshot may get before it is rebuilt in the background. */
  refreshMs: number;
  logger?: Pick<Logger, 'warn'>;
}

/** A snapshot reads a week of claims in the background: far more than an API query's time budget. */
const SNAPSHOT_TIMEOUT_MS = 120_000;

/** How many refresh periods a snapshot's edge claims cover: room for a slow or failed refresh. */
const HORIZON_REFRESHES = 4;

const columns = (size: number): Columns => ({
  claims: Object.fromEntries(WINDOW_NAMES.map((name) => [name, new Int32Array(size)])) as Columns['claims'],
  usd: Object.fromEntries(WINDOW_NAMES.map((name) => [name, new Float64Array(size)])) as Columns['usd'],
});

const totalsAt = (table: Columns, row: number): Record<ClaimWindow, WindowTotals> =>
  Object.fromEntries(
    WINDOW_NAMES.map((name) => [name, { claims: table.claims[name][row]!, usdMicros: table.usd[name][row]! }]),
  ) as Record<ClaimWindow, WindowTotals>;

const emptyTotals = (): Record<ClaimWindow, WindowTotals> =>
  Object.fromEntries(WINDOW_NAMES.map((name) => [name, { claims: 0, usdMicros: 0 }])) as Record<ClaimWindow, WindowTotals>;

export const byVolume = (window: ClaimWindow) => (a: CampaignVolume, b: CampaignVolume) => {
  const left = a.windows[window].usdMicros;
  const right = b.windows[window].usdMicros;
  if (left !== right) return right - left;
  return a.publicId < b.publicId ? -1 : a.publicId > b.publicId ? 1 : 0;
};

export class ClaimWindows {
  private snapshot: Snapshot | undefined;
  private building: Promise<Snapshot> | undefined;
  /** Which campaigns target which named contracts, as of a campaign-set version: it changes only with that. */
  private targeted: { version: string; rows: TargetedContractRow[] } | undefined;

  constructor(
    private readonly repository: ClaimWindowsRepository,
    private readonly options: ClaimWindowsOptions,
  ) {}

  /** The exact volumes at `now`. */
  async at(now: Date): Promise<WindowView> {
    let snapshot = this.snapshot;
    // A snapshot from the future (a clock set back), or past its horizon, cannot be corrected: build one for now.
    if (!snapshot || snapshot.at > now.getTime() || now.getTime() > snapshot.coveredUntil) snapshot = await this.rebuild(now);
    const inserted = await this.repository.claimsAfter(snapshot.maxClaimId);
    const stale = now.getTime() - snapshot.at > this.options.refreshMs || inserted.version !== snapshot.version;
    if (stale && !this.building) {
      this.rebuild(now).catch((error: unknown) => this.options.logger?.warn({ err: error }, 'claim window snapshot failed'));
    }
    return new WindowView(snapshot, applyChanges(snapshot, [snapshot.edges, inserted.rows], now.getTime()));
  }

  private rebuild(now: Date): Promise<Snapshot> {
    this.building ??= this.build(now).finally(() => {
      this.building = undefined;
    });
    return this.building;
  }

  private async build(now: Date): Promise<Snapshot> {
    const horizonMs = HORIZON_REFRESHES * this.options.refreshMs;
    const { maxClaimId, version, columns: snapshotColumns, edges } = await this.repository.snapshot(now, horizonMs, SNAPSHOT_TIMEOUT_MS);
    if (this.targeted?.version !== version) {
      // Read after the version: rows newer than it only make the next rebuild read them again.
      this.targeted = { version, rows: await this.repository.targetedContracts() };
    }
    const targeted = this.targeted.rows;
    const campaigns: CampaignTable = {
      keys: Int32Array.from(snapshotColumns.campaign_keys),
      publicIds: snapshotColumns.public_ids,
      rowOf: new Map(snapshotColumns.campaign_keys.map((key, row) => [key, row])),
      claims: Object.fromEntries(WINDOW_NAMES.map((name, window) => [name, Int32Array.from(snapshotColumns.claims[window] ?? [])])) as Columns['claims'],
      usd: Object.fromEntries(
        WINDOW_NAMES.map((name, window) => [name, Float64Array.from(snapshotColumns.usd_micros[window] ?? [])]),
      ) as Columns['usd'],
    };
    const rankings = {} as Snapshot['rankings'];
    for (const name of WINDOW_NAMES) {
      // Sorting 100,000 campaigns takes tens of milliseconds: let waiting requests run between windows.
      await new Promise((resolve) => setImmediate(resolve));
      rankings[name] = rank(campaigns, name);
    }
    const snapshot: Snapshot = {
      at: now.getTime(),
      coveredUntil: now.getTime() + horizonMs,
      maxClaimId,
      version,
      edges,
      campaigns,
      rankings,
      contracts: contractTable(targeted, campaigns),
    };
    if (!this.snapshot || this.snapshot.at <= snapshot.at || snapshot.at <= now.getTime()) this.snapshot = snapshot;
    return snapshot;
  }
}

/** Rows with claims in the window, by volume, ties on public ID. */
function rank(campaigns: CampaignTable, window: ClaimWindow): Int32Array {
  const claims = campaigns.claims[window];
  const usd = campaigns.usd[window];
  const rows: number[] = [];
  for (let row = 0; row < claims.length; row++) if (claims[row]! > 0) rows.push(row);
  rows.sort((a, b) => {
    const difference = usd[b]! - usd[a]!;
    if (difference !== 0) return difference;
    const left = campaigns.publicIds[a]!;
    const right = campaigns.publicIds[b]!;
    return left < right ? -1 : left > right ? 1 : 0;
  });
  return Int32Array.from(rows);
}

function contractTable(rows: TargetedContractRow[], campaigns: CampaignTable): ContractTable {
  const starts = [0];
  for (const row of rows) starts.push(starts[starts.length - 1]! + row.campaign_keys.length);
  const table: ContractTable = {
    chainIds: Int32Array.from(rows, (row) => row.chain_id),
    addresses: rows.map((row) => row.address),
    names: rows.map((row) => row.name),
    starts: Int32Array.from(starts),
    campaignKeys: Int32Array.from(rows.flatMap((row) => row.campaign_keys)),
    blockTimestamps: Float64Array.from(rows.flatMap((row) => row.block_timestamps)),
    newest: Float64Array.from(rows, (row) => row.block_timestamps.reduce((newest, at) => Math.max(newest, at), 0)),
    byCampaign: new Map(),
    ...columns(rows.length),
  };
  rows.forEach((row, contract) => {
    for (const key of row.campaign_keys) {
      const targeted = table.byCampaign.get(key);
      if (targeted) targeted.push(contract);
      else table.byCampaign.set(key, [contract]);
      const campaign = campaigns.rowOf.get(key);
      if (campaign === undefined) continue;
      for (const name of WINDOW_NAMES) {
        table.claims[name][contract]! += campaigns.claims[name][campaign]!;
        table.usd[name][contract]! += campaigns.usd[name][campaign]!;
      }
    }
  });
  return table;
}

/**
 * The corrected volumes of the campaigns whose claims changed window membership since the snapshot,
 * from lists of candidate claims (the snapshot's edge claims, those inserted since), read in place.
 */
function applyChanges(snapshot: Snapshot, rowLists: ClaimChangeRow[][], now: number): Map<number, CampaignVolume> {
  const corrected = new Map<number, CampaignVolume>();
  for (const rows of rowLists) {
    for (const row of rows) {
      // Most edge claims have not crossed an edge yet: they cost a few comparisons and no allocation.
      for (const name of WINDOW_NAMES) {
        const length = CLAIM_WINDOWS[name];
        const inNow = row.claimed_at_ms > now - length && row.claimed_at_ms <= now;
        const inSnapshot = !row.is_new && row.claimed_at_ms > snapshot.at - length && row.claimed_at_ms <= snapshot.at;
        const delta = Number(inNow) - Number(inSnapshot);
        if (delta === 0) continue;
        const totals = correctedVolume(corrected, snapshot, row).windows[name];
        totals.claims += delta;
        totals.usdMicros += delta * parseMicros(row.usd_value);
      }
    }
  }
  return corrected;
}

/** The campaign's entry in `corrected`, starting from its snapshot volume. */
function correctedVolume(corrected: Map<number, CampaignVolume>, snapshot: Snapshot, row: ClaimChangeRow): CampaignVolume {
  let volume = corrected.get(row.campaign_key);
  if (!volume) {
    const base = snapshot.campaigns.rowOf.get(row.campaign_key);
    volume = {
      key: row.campaign_key,
      publicId: row.public_id,
      windows: base === undefined ? emptyTotals() : totalsAt(snapshot.campaigns, base),
    };
    corrected.set(row.campaign_key, volume);
  }
  return volume;
}

/** The volumes at one instant: the snapshot with the corrections of one request. */
export class WindowView {
  constructor(
    private readonly snapshot: Snapshot,
    private readonly corrected: Map<number, CampaignVolume>,
  ) {}

  volume(key: number): CampaignVolume | undefined {
    const corrected = this.corrected.get(key);
    if (corrected) return corrected;
    const row = this.snapshot.campaigns.rowOf.get(key);
    return row === undefined ? undefined : this.fromSnapshot(row);
  }

  private fromSnapshot(row: number): CampaignVolume {
    const { campaigns } = this.snapshot;
    return { key: campaigns.keys[row]!, publicId: campaigns.publicIds[row]!, windows: totalsAt(campaigns, row) };
  }

  /**
   * Campaigns with claims in `window`, by USD volume, highest first, ties on public ID: the
   * snapshot's order for the untouched campaigns merged with the corrected ones, lazily.
   */
  *ranked(window: ClaimWindow): Generator<CampaignVolume> {
    const touched = [...this.corrected.values()].filter((volume) => volume.windows[window].claims > 0).sort(byVolume(window));
    const order = byVolume(window);
    let next = 0;
    for (const row of this.snapshot.rankings[window]) {
      if (this.corrected.has(this.snapshot.campaigns.keys[row]!)) continue;
      const volume = this.fromSnapshot(row);
      while (next < touched.length && order(touched[next]!, volume) < 0) yield touched[next++]!;
      yield volume;
    }
    while (next < touched.length) yield touched[next++]!;
  }

  /**
   * The named contracts campaigns target with their claims per window at this instant. Counted
   * over `onlyCampaigns` when given (campaigns of one creator), else over every targeting campaign.
   */
  contracts(onlyCampaigns?: ReadonlySet<number>): ContractVolume[] {
    const table = this.snapshot.contracts;
    const volumes: ContractVolume[] = [];
    for (let contract = 0; contract < table.chainIds.length; contract++) {
      const describe = (campaignCount: number, newestBlockTimestamp: number, windows: Record<ClaimWindow, WindowTotals>) => ({
        chainId: table.chainIds[contract]!,
        address: table.addresses[contract]!,
        name: table.names[contract]!,
        campaignCount,
        newestBlockTimestamp,
        windows,
      });
      const from = table.starts[contract]!;
      const to = table.starts[contract + 1]!;
      if (onlyCampaigns) {
        let campaignCount = 0;
        let newest = 0;
        const windows = emptyTotals();
        for (let at = from; at < to; at++) {
          const key = table.campaignKeys[at]!;
          if (!onlyCampaigns.has(key)) continue;
          campaignCount++;
          newest = Math.max(newest, table.blockTimestamps[at]!);
          addTotals(windows, this.volume(key)?.windows, 1);
        }
        if (campaignCount > 0) volumes.push(describe(campaignCount, newest, windows));
      } else {
        volumes.push(describe(to - from, table.newest[contract]!, totalsAt(table, contract)));
      }
    }
    if (!onlyCampaigns) {
      // Corrections: each touched campaign moves its contracts' totals from its snapshot volume to its volume now.
      for (const volume of this.corrected.values()) {
        const row = this.snapshot.campaigns.rowOf.get(volume.key);
        for (const contract of table.byCampaign.get(volume.key) ?? []) {
          const windows = volumes[contract]!.windows;
          if (row !== undefined) addTotals(windows, totalsAt(this.snapshot.campaigns, row), -1);
          addTotals(windows, volume.windows, 1);
        }
      }
    }
    return volumes;
  }
}

function addTotals(into: Record<ClaimWindow, WindowTotals>, from: Record<ClaimWindow, WindowTotals> | undefined, sign: 1 | -1) {
  if (!from) return;
  for (const name of WINDOW_NAMES) {
    into[name].claims += sign * from[name].claims;
    into[name].usdMicros += sign * from[name].usdMicros;
  }
}
