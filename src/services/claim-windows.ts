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
 * aggregates every window once (at most every `refreshMs`), and each request corrects it with the
 * few claims whose window membership changed since: claims inserted after the snapshot (by claim
 * id, so late-arriving claims count too), and claims that aged out of a window or entered it.
 * The result equals the plain aggregation at the request's instant; the snapshot only decides how
 * much correcting a request does. What the snapshot alone decides is which named contracts each
 * campaign targets (explore contracts): that map is rebuilt when the set of campaigns changes,
 * within one refresh.
 */
export interface WindowTotals {
  claims: number;
  usdMicros: bigint;
}

export interface CampaignVolume {
  key: number;
  publicId: string;
  windows: Record<ClaimWindow, WindowTotals>;
}

export interface TargetedContract {
  chainId: number;
  address: string;
  name: string;
  /** The campaigns whose steps target it, with their block times (for recently-deployed). */
  campaigns: { key: number; blockTimestamp: number }[];
  newestBlockTimestamp: number;
  /** Claims of those campaigns per window, as of the snapshot. */
  windows: Record<ClaimWindow, WindowTotals>;
}

interface Snapshot {
  at: number;
  maxClaimId: string;
  version: string;
  volumes: Map<number, CampaignVolume>;
  /** Per window, campaigns with claims in it, by USD volume (highest first), ties on public ID. */
  rankings: Record<ClaimWindow, CampaignVolume[]>;
  contracts: TargetedContract[];
  contractsByCampaign: Map<number, TargetedContract[]>;
}

export interface ClaimWindowsOptions {
  /** How old a snapshot may get before it is rebuilt in the background. */
  refreshMs: number;
  logger?: Pick<Logger, 'warn'>;
}

/** A snapshot reads a week of claims in the background: far more than an API query's time budget. */
const SNAPSHOT_TIMEOUT_MS = 120_000;

const emptyWindows = (): Record<ClaimWindow, WindowTotals> =>
  Object.fromEntries(WINDOW_NAMES.map((name) => [name, { claims: 0, usdMicros: 0n }])) as Record<ClaimWindow, WindowTotals>;

export const byVolume = (window: ClaimWindow) => (a: CampaignVolume, b: CampaignVolume) => {
  const left = a.windows[window].usdMicros;
  const right = b.windows[window].usdMicros;
  if (left !== right) return left > right ? -1 : 1;
  return a.publicId < b.publicId ? -1 : a.publicId > b.publicId ? 1 : 0;
};

export class ClaimWindows {
  private snapshot: Snapshot | undefined;
  private building: Promise<Snapshot> | undefined;

  constructor(
    private readonly repository: ClaimWindowsRepository,
    private readonly options: ClaimWindowsOptions,
  ) {}

  /** The exact volumes at `now`. */
  async at(now: Date): Promise<WindowView> {
    let snapshot = this.snapshot;
    // A snapshot from the future (a clock set back) cannot be corrected forwards: build one for now.
    if (!snapshot || snapshot.at > now.getTime()) snapshot = await this.rebuild(now);
    const changes = await this.repository.changesSince(new Date(snapshot.at), snapshot.maxClaimId, now);
    const stale = now.getTime() - snapshot.at > this.options.refreshMs || changes.version !== snapshot.version;
    if (stale && !this.building) {
      this.rebuild(now).catch((error: unknown) => this.options.logger?.warn({ err: error }, 'claim window snapshot failed'));
    }
    return new WindowView(snapshot, applyChanges(snapshot, changes.rows, now.getTime()));
  }

  private rebuild(now: Date): Promise<Snapshot> {
    this.building ??= this.build(now).finally(() => {
      this.building = undefined;
    });
    return this.building;
  }

  private async build(now: Date): Promise<Snapshot> {
    const [{ maxClaimId, version, rows }, targeted] = await Promise.all([
      this.repository.snapshot(now, SNAPSHOT_TIMEOUT_MS),
      this.repository.targetedContracts(),
    ]);
    const volumes = new Map<number, CampaignVolume>();
    for (const row of rows) {
      const windows = emptyWindows();
      WINDOW_NAMES.forEach((name, index) => {
        windows[name] = { claims: row.claims[index] ?? 0, usdMicros: parseMicros(row.usd[index] ?? '0') };
      });
      volumes.set(row.campaign_key, { key: row.campaign_key, publicId: row.public_id, windows });
    }
    const rankings = Object.fromEntries(
      WINDOW_NAMES.map((name) => [name, [...volumes.values()].filter((v) => v.windows[name].claims > 0).sort(byVolume(name))]),
    ) as Record<ClaimWindow, CampaignVolume[]>;
    const snapshot: Snapshot = { at: now.getTime(), maxClaimId, version, volumes, rankings, ...groupContracts(targeted, volumes) };
    if (!this.snapshot || this.snapshot.at <= snapshot.at || snapshot.at <= now.getTime()) this.snapshot = snapshot;
    return snapshot;
  }
}

function groupContracts(rows: TargetedContractRow[], volumes: Map<number, CampaignVolume>) {
  const byAddress = new Map<string, TargetedContract>();
  const contractsByCampaign = new Map<number, TargetedContract[]>();
  for (const row of rows) {
    const id = `${row.chain_id}:${row.address}`;
    let contract = byAddress.get(id);
    if (!contract) {
      contract = {
        chainId: row.chain_id,
        address: row.address,
        name: row.name,
        campaigns: [],
        newestBlockTimestamp: 0,
        windows: emptyWindows(),
      };
      byAddress.set(id, contract);
    }
    contract.campaigns.push({ key: row.campaign_key, blockTimestamp: row.block_timestamp });
    contract.newestBlockTimestamp = Math.max(contract.newestBlockTimestamp, row.block_timestamp);
    addWindows(contract.windows, volumes.get(row.campaign_key)?.windows, 1);
    const targeted = contractsByCampaign.get(row.campaign_key) ?? [];
    targeted.push(contract);
    contractsByCampaign.set(row.campaign_key, targeted);
  }
  return { contracts: [...byAddress.values()], contractsByCampaign };
}

function addWindows(
  into: Record<ClaimWindow, WindowTotals>,
  from: Record<ClaimWindow, WindowTotals> | undefined,
  sign: 1 | -1,
): void {
  if (!from) return;
  for (const name of WINDOW_NAMES) {
    into[name].claims += sign * from[name].claims;
    into[name].usdMicros += BigInt(sign) * from[name].usdMicros;
  }
}

/** The corrected volumes of the campaigns the changes touch. */
function applyChanges(snapshot: Snapshot, rows: ClaimChangeRow[], now: number): Map<number, CampaignVolume> {
  const corrected = new Map<number, CampaignVolume>();
  for (const row of rows) {
    let volume = corrected.get(row.campaign_key);
    if (!volume) {
      const base = snapshot.volumes.get(row.campaign_key);
      volume = {
        key: row.campaign_key,
        publicId: row.public_id,
        windows: base ? structuredClone(base.windows) : emptyWindows(),
      };
      corrected.set(row.campaign_key, volume);
    }
    const usd = parseMicros(row.usd_value);
    for (const name of WINDOW_NAMES) {
      const length = CLAIM_WINDOWS[name];
      const inNow = row.claimed_at_ms > now - length && row.claimed_at_ms <= now;
      const inSnapshot = !row.is_new && row.claimed_at_ms > snapshot.at - length && row.claimed_at_ms <= snapshot.at;
      const delta = Number(inNow) - Number(inSnapshot);
      if (delta !== 0) {
        volume.windows[name].claims += delta;
        volume.windows[name].usdMicros += BigInt(delta) * usd;
      }
    }
  }
  return corrected;
}

/** The volumes at one instant: the snapshot with the corrections of one request. */
export class WindowView {
  constructor(
    private readonly snapshot: Snapshot,
    private readonly corrected: Map<number, CampaignVolume>,
  ) {}

  volume(key: number): CampaignVolume | undefined {
    return this.corrected.get(key) ?? this.snapshot.volumes.get(key);
  }

  /**
   * Campaigns with claims in `window`, by USD volume, highest first, ties on public ID: the
   * snapshot's order for the untouched campaigns merged with the corrected ones, lazily.
   */
  *ranked(window: ClaimWindow): Generator<CampaignVolume> {
    const touched = [...this.corrected.values()].filter((volume) => volume.windows[window].claims > 0).sort(byVolume(window));
    const order = byVolume(window);
    let next = 0;
    for (const volume of this.snapshot.rankings[window]) {
      if (this.corrected.has(volume.key)) continue;
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
    if (onlyCampaigns) {
      return this.snapshot.contracts
        .map((contract) => {
          const campaigns = contract.campaigns.filter((campaign) => onlyCampaigns.has(campaign.key));
          const windows = emptyWindows();
          for (const campaign of campaigns) addWindows(windows, this.volume(campaign.key)?.windows, 1);
          const newest = Math.max(0, ...campaigns.map((campaign) => campaign.blockTimestamp));
          return { contract, campaignCount: campaigns.length, newestBlockTimestamp: newest, windows };
        })
        .filter((volume) => volume.campaignCount > 0);
    }
    const corrected = new Map<TargetedContract, Record<ClaimWindow, WindowTotals>>();
    for (const volume of this.corrected.values()) {
      for (const contract of this.snapshot.contractsByCampaign.get(volume.key) ?? []) {
        let windows = corrected.get(contract);
        if (!windows) {
          windows = structuredClone(contract.windows);
          corrected.set(contract, windows);
        }
        addWindows(windows, this.snapshot.volumes.get(volume.key)?.windows, -1);
        addWindows(windows, volume.windows, 1);
      }
    }
    return this.snapshot.contracts.map((contract) => ({
      contract,
      campaignCount: contract.campaigns.length,
      newestBlockTimestamp: contract.newestBlockTimestamp,
      windows: corrected.get(contract) ?? contract.windows,
    }));
  }
}

export interface ContractVolume {
  contract: TargetedContract;
  campaignCount: number;
  newestBlockTimestamp: number;
  windows: Record<ClaimWindow, WindowTotals>;
}
