import sortedBtree from 'sorted-btree';
import { CLAIM_WINDOWS, type ClaimChunk, type ClaimWindow, WINDOW_NAMES } from './repository.js';
import { BlockBounds } from './block-bounds.js';
import { ClaimantKeys } from './claimant-keys.js';
import { PublicIdKeys } from './public-id-keys.js';

/**
 * Claim volumes per campaign over the trailing windows, kept incrementally in memory: no I/O here.
 *
 * Every claim is a contribution (time, campaign, USD, +1), a deleted claim the same with -1 (it is
 * in a window exactly when the claim it cancels is), an updated claim one of each. Contributions are
 * kept in time buckets; as the clock moves from `now` to `later`, those in (now, later] enter every
 * window and, per window W, those in (now - W, later - W] leave it. So the totals equal a plain
 * aggregation over the claims at the current instant, and the work per step is the contributions
 * that crossed an edge, not the number of claims.
 *
 * Times are microseconds since the epoch (what PostgreSQL stores, exact in a double until the year
 * 2255); USD amounts are integers of micro-dollars, exact to 2^53 (about $9 billion per window).
 * Windows are half-open: a claim counts for `1h` at `now` when `now - 1h < claimed_at <= now`.
 */

/** The windows trending ranks by. */
export const RANKED_WINDOWS = ['1h', '24h'] as const satisfies readonly ClaimWindow[];
export type RankedWindow = (typeof RANKED_WINDOWS)[number];

export interface WindowTotals {
  claims: number;
  usdMicros: number;
}

/**
 * One claim's contribution (`sign` 1), its cancellation (-1), or a change of its value alone (0:
 * `usdMicros` is the difference, and the claim counts as before).
 */
export interface ClaimContribution {
  campaignKey: number;
  publicId: string;
  /** The claim's claimant (lowercase address): its totals feed the claimant leaderboards. */
  claimant: string;
  claimedAtUs: number;
  usdMicros: number;
  sign: 1 | -1 | 0;
}

// A CommonJS module: Node's ESM loader hands over its exports object, whose `default` is the class;
// vitest's loader hands over the class itself. TypeScript types it either way, by module resolution.
type BTreeClass = typeof sortedBtree extends { default: infer Class } ? Class : typeof sortedBtree;
const BTree = ('default' in sortedBtree ? sortedBtree.default : sortedBtree) as BTreeClass;
type Ranking = InstanceType<typeof BTree<CampaignVolume, undefined>>;

const WINDOW_COUNT = WINDOW_NAMES.length;
const WINDOW_US = WINDOW_NAMES.map((name) => CLAIM_WINDOWS[name] * 1000);
const LONGEST_US = Math.max(...WINDOW_US);
const WINDOW_INDEX = Object.fromEntries(WINDOW_NAMES.map((name, index) => [name, index])) as Record<ClaimWindow, number>;

/**
 * A campaign's volumes at one instant, immutable: the rankings hold these, so a view taken at one
 * instant keeps its order and numbers while the state moves on. `counts` holds the claim counts
 * then the USD volumes, in WINDOW_NAMES order; `row` is the campaign's row in the state (its public
 * ID's index in the state's PublicIdKeys).
 */
export class CampaignVolume {
  constructor(
    readonly key: number,
    readonly row: number,
    private readonly counts: readonly number[],
  ) {}

  claims(window: ClaimWindow): number {
    return this.counts[WINDOW_INDEX[window]]!;
  }

  usdMicros(window: ClaimWindow): number {
    return this.counts[WINDOW_COUNT + WINDOW_INDEX[window]]!;
  }

  get windows(): Record<ClaimWindow, WindowTotals> {
    return Object.fromEntries(
      WINDOW_NAMES.map((name) => [name, { claims: this.claims(name), usdMicros: this.usdMicros(name) }]),
    ) as Record<ClaimWindow, WindowTotals>;
  }
}

/** Highest volume first, ties on public ID (binary order, as the database's "C" collation). */
export const byVolume =
  (window: ClaimWindow, publicIds: PublicIdKeys) =>
  (a: CampaignVolume, b: CampaignVolume): number =>
    b.usdMicros(window) - a.usdMicros(window) || publicIds.compare(a.row, b.row);

/** A named contract and the campaigns whose action steps target it. */
export interface ContractTargets {
  chainId: number;
  address: string;
  name: string;
  campaignKeys: Int32Array;
  /** Block timestamps of those campaigns, in the same order. */
  blockTimestamps: Float64Array;
}

export interface ContractVolume {
  chainId: number;
  address: string;
  name: string;
  campaignCount: number;
  newestBlockTimestamp: number;
  windows: Record<ClaimWindow, WindowTotals>;
}

/**
 * One bucket per ten minutes: a week is about a thousand buckets of five heap objects each, few for
 * every full collection to trace (a bucket a minute would be ten times as many); a bucket's
 * contributions are searched by binary search, and the claims that arrive together are merged into
 * it in one pass, moving its later contributions once.
 */
const BUCKET_US = 600_000_000;
const FIRST_CAPACITY = 16;
/** Marks a stored row as a change of value alone; rows stay far below it. */
const VALUE_ONLY = 2 ** 30;

/** The windows the claimant leaderboards rank by; the others keep no claimant totals. */
export const CLAIMANT_WINDOWS = ['24h', '7d'] as const satisfies readonly ClaimWindow[];
export type ClaimantWindow = (typeof CLAIMANT_WINDOWS)[number];
/** Per window (WINDOW_NAMES order), its place among the claimant windows, or -1. */
const CLAIMANT_SLOT = WINDOW_NAMES.map((name) => (CLAIMANT_WINDOWS as readonly ClaimWindow[]).indexOf(name));

/**
 * Every claimant's claims and USD micros over one window, by claimant key (`addresses[key]`), live:
 * they change as the state moves, so a reader reads them before its next await.
 */
export interface ClaimantTotals {
  count: number;
  /** The claimants' keys and addresses. */
  keys: ClaimantKeys;
  claims: Int32Array;
  usdMicros: Float64Array;
  /** Claimants with a claim in the window. */
  listed: number;
  /** Upper bounds of `claims` and `usdMicros` per block of keys, which a search for the highest may tighten. */
  bounds: { claims: BlockBounds; usd: BlockBounds };
}

/**
 * Contributions to apply, one column each: the campaign's row, the claimant's key, the time, the
 * signed USD micros (the difference for a change of value alone) and the sign.
 */
class HeldContributions {
  length = 0;
  readonly rows: Int32Array;
  readonly claimants: Int32Array;
  readonly claimedAtUs: Float64Array;
  readonly usd: Float64Array;
  readonly signs: Int8Array;

  constructor(capacity: number) {
    this.rows = new Int32Array(capacity);
    this.claimants = new Int32Array(capacity);
    this.claimedAtUs = new Float64Array(capacity);
    this.usd = new Float64Array(capacity);
    this.signs = new Int8Array(capacity);
  }

  add(row: number, claimant: number, claimedAtUs: number, usdMicros: number, sign: -1 | 0 | 1): void {
    const at = this.length++;
    this.rows[at] = row;
    this.claimants[at] = claimant;
    this.claimedAtUs[at] = claimedAtUs;
    this.usd[at] = sign === 0 ? usdMicros : sign * usdMicros;
    this.signs[at] = sign;
  }

  /** Their positions by time, equal times in the order they came (a load's chunk comes in campaign order). */
  inTimeOrder(): Int32Array {
    const order = new Int32Array(this.length);
    let sorted = true;
    for (let at = 0; at < this.length; at++) {
      order[at] = at;
      if (at > 0 && this.claimedAtUs[at - 1]! > this.claimedAtUs[at]!) sorted = false;
    }
    const times = this.claimedAtUs;
    return sorted ? order : order.sort((a, b) => times[a]! - times[b]! || a - b);
  }
}

/** Contributions as a bucket stores them (see Bucket), of several buckets one after the other. */
class BucketColumns {
  readonly offsets: Int32Array;
  readonly rows: Int32Array;
  readonly usd: Float64Array;
  readonly claimants: Int32Array;

  constructor(capacity: number) {
    this.offsets = new Int32Array(capacity);
    this.rows = new Int32Array(capacity);
    this.usd = new Float64Array(capacity);
    this.claimants = new Int32Array(capacity);
  }
}

/**
 * The contributions of one bucket, sorted by time, in four columns over one buffer (20 bytes a
 * contribution, and no object per contribution): the time as microseconds after
 * the bucket's start (below 600,000,000, exact in an Int32), the row signed by whether the claim
 * counts (+(row + 1)), cancels one (-(row + 1)) or changes a value alone (VALUE_ONLY + row + 1), the
 * signed USD micros, and the claimant's key.
 */
class Bucket {
  length = 0;
  offsets!: Int32Array;
  rows!: Int32Array;
  usd!: Float64Array;
  claimants!: Int32Array;

  constructor(
    readonly startUs: number,
    capacity = FIRST_CAPACITY,
  ) {
    this.allocate(capacity);
  }

  get capacity(): number {
    return this.usd.length;
  }

  /** Room for `count` more at least, in one buffer of that size. */
  reserveFor(count: number): void {
    if (this.length + count > this.usd.length) this.allocate(this.length + count);
  }

  /**
   * Inserts contributions given in time order (equal times in the order they came), each after the
   * ones of its time already here, in one pass from the end: a revaluation's thousands of claims in
   * the middle of a bucket move its later contributions once, not once per claim.
   */
  merge(incoming: BucketColumns, from: number, to: number): void {
    const count = to - from;
    if (this.length + count > this.usd.length) this.allocate(Math.max(this.length + count, this.usd.length * 2));
    const { offsets, rows, usd, claimants } = this;
    let held = this.length - 1;
    let target = this.length + count - 1;
    for (let next = to - 1; next >= from; next--, target--) {
      const offsetUs = incoming.offsets[next]!;
      for (; held >= 0 && offsets[held]! > offsetUs; held--, target--) {
        offsets[target] = offsets[held]!;
        rows[target] = rows[held]!;
        usd[target] = usd[held]!;
        claimants[target] = claimants[held]!;
      }
      offsets[target] = offsetUs;
      rows[target] = incoming.rows[next]!;
      usd[target] = incoming.usd[next]!;
      claimants[target] = incoming.claimants[next]!;
    }
    this.length += count;
  }

  /** Gives back the room doubling left: a loaded bucket of a past time rarely gets another claim. */
  trim(): void {
    if (this.length < this.usd.length) this.allocate(Math.max(this.length, 1));
  }

  private allocate(capacity: number): void {
    const buffer = new ArrayBuffer(capacity * 20);
    const usd = new Float64Array(buffer, 0, capacity);
    const offsets = new Int32Array(buffer, capacity * 8, capacity);
    const rows = new Int32Array(buffer, capacity * 12, capacity);
    const claimants = new Int32Array(buffer, capacity * 16, capacity);
    if (this.length > 0) {
      usd.set(this.usd.subarray(0, this.length));
      offsets.set(this.offsets.subarray(0, this.length));
      rows.set(this.rows.subarray(0, this.length));
      claimants.set(this.claimants.subarray(0, this.length));
    }
    [this.usd, this.offsets, this.rows, this.claimants] = [usd, offsets, rows, claimants];
  }
}

export class ClaimVolumeState {
  /** The instant the totals are at, in microseconds; it only moves forward. */
  private nowUs: number;
  private readonly buckets = new Map<number, Bucket>();
  private contributionCount = 0;
  private droppedThrough = -Infinity;

  // Campaigns, by row: their key, public ID and totals per window (claims, USD micros). Rows by
  // campaign key in a typed array rather than a Map: keys are the database's serial numbers, and a
  // Map of every campaign is heap for every full collection to trace, where a typed array is one
  // object, its entries off heap.
  private rowByKey: Int32Array = new Int32Array(1024).fill(-1);
  private keys: Int32Array = new Int32Array(1024);
  private rowCount = 0;
  /** Per row, its campaign's public ID, for ties (off the V8 heap: see PublicIdKeys). */
  readonly publicIds = new PublicIdKeys();
  private claims: Int32Array[] = WINDOW_NAMES.map(() => new Int32Array(1024));
  private usd: Float64Array[] = WINDOW_NAMES.map(() => new Float64Array(1024));

  // Claimants, by key (ClaimantKeys: their addresses off the heap), and their totals in each of CLAIMANT_WINDOWS. A claimant keeps
  // its key while a contribution of its stays; compactClaimants() gives the others' keys back.
  private claimantKeys = new ClaimantKeys();
  private claimantClaims: Int32Array[] = CLAIMANT_WINDOWS.map(() => new Int32Array(1024));
  private claimantUsd: Float64Array[] = CLAIMANT_WINDOWS.map(() => new Float64Array(1024));
  private claimantBounds = CLAIMANT_WINDOWS.map(() => ({ claims: new BlockBounds(1024), usd: new BlockBounds(1024) }));
  private readonly claimantsListed: number[] = CLAIMANT_WINDOWS.map(() => 0);

  /** Per row, the immutable volume the rankings hold for it (undefined outside every ranking). */
  private readonly published: (CampaignVolume | undefined)[] = [];
  /** Rows whose totals changed since their volume was last published. */
  private readonly dirty = new Set<number>();
  private readonly rankings: Record<RankedWindow, Ranking> = {
    '1h': new BTree<CampaignVolume, undefined>(undefined, byVolume('1h', this.publicIds)),
    '24h': new BTree<CampaignVolume, undefined>(undefined, byVolume('24h', this.publicIds)),
  };

  // Named contracts: their targets and totals per window, kept with the campaigns' totals.
  private contracts: ContractTargets[] = [];
  private targets = TargetIndex.of([]);
  /** Per row, its campaign's position in `targets`, or -1 for a campaign that targets no named contract. */
  private targetOfRow: Int32Array = new Int32Array(1024).fill(-1);
  private newestBlock: number[] = [];
  private contractClaims: number[][] = [];
  private contractUsd: number[][] = [];
  /**
   * Every named contract's volumes as last described, until one of their totals changes: explore
   * asks for them on every request, and describing every contract each time was a large share of its
   * CPU. Each contract is described again only when its own totals change: with claims streaming in,
   * describing every contract after every claim made objects that lived until the next claim, which
   * V8 then allocated straight in the old generation, and memory grew with the claim rate.
   */
  private describedContracts: readonly ContractVolume[] | undefined;
  private describedContract: (ContractVolume | undefined)[] = [];

  constructor(nowMs: number) {
    this.nowUs = nowMs * 1000;
  }

  get instantMs(): number {
    return this.nowUs / 1000;
  }

  /** Contributions held (claims and cancellations of the last week and the future). */
  get size(): number {
    return this.contributionCount;
  }

  /** Adds claims (sign 1), removes them (sign -1) or changes their value (sign 0), whatever their time. */
  apply(contributions: readonly ClaimContribution[]): void {
    // Every request polls the feed, and most polls bring nothing: nothing is allocated for those.
    if (contributions.length === 0) return;
    const held = new HeldContributions(contributions.length);
    for (const { campaignKey, publicId, claimant, claimedAtUs, usdMicros, sign } of contributions) {
      if (this.holds(claimedAtUs)) held.add(this.rowFor(campaignKey, publicId), this.claimantFor(claimant), claimedAtUs, usdMicros, sign);
    }
    this.applyHeld(held);
  }

  /**
   * A load's chunk, column by column: the same as apply() of its claims (a raffle draw's sign is 0),
   * without an object per claim or per bucket. A week of claims is a few hundred chunks applied one
   * after the other on the main thread: objects made per claim would outlive the young generation
   * and sit in the old one until a full collection, raising the server's memory through the load.
   */
  applyChunk({ campaigns, claimants, claims }: ClaimChunk): void {
    const count = claims.campaign_keys.length;
    if (count === 0) return;
    const publicIds = new Map<number, string>();
    for (let index = 0; index < campaigns.keys.length; index++) publicIds.set(campaigns.keys[index]!, campaigns.public_ids[index]!);
    const claimantKeys = new Int32Array(claimants.length).fill(-1);
    const held = new HeldContributions(count);
    for (let index = 0; index < count; index++) {
      const claimedAtUs = claims.claimed_at_us[index]!;
      if (!this.holds(claimedAtUs)) continue;
      const campaignKey = claims.campaign_keys[index]!;
      const row = this.rowFor(campaignKey, publicIds.get(campaignKey) ?? '');
      const claimant = claims.claimant_indexes[index]!;
      if (claimantKeys[claimant]! < 0) claimantKeys[claimant] = this.claimantFor(claimants[claimant]!);
      held.add(row, claimantKeys[claimant]!, claimedAtUs, claims.usd_micros[index]!, claims.signs[index] === 0 ? 0 : 1);
    }
    this.applyHeld(held);
  }

  /** Moves the totals to `nowMs`; an earlier instant (a clock set back) leaves them where they are. */
  advanceTo(nowMs: number): void {
    const laterUs = nowMs * 1000;
    if (laterUs <= this.nowUs) return;
    const earlierUs = this.nowUs;
    // Claims that were in the future enter every window first; those that also left a window since leave it below.
    this.sweep(earlierUs, laterUs, (row, usd, sign, claimant) => {
      for (let window = 0; window < WINDOW_COUNT; window++) this.add(row, window, sign, usd, claimant);
    });
    for (let window = 0; window < WINDOW_COUNT; window++) {
      const length = WINDOW_US[window]!;
      this.sweep(earlierUs - length, laterUs - length, (row, usd, sign, claimant) => this.add(row, window, -sign, -usd, claimant));
    }
    this.nowUs = laterUs;
    this.dropBefore(laterUs - LONGEST_US);
    this.publish();
  }

  /** The volumes of one campaign now, or undefined for one without claims in the last week. */
  volume(key: number): CampaignVolume | undefined {
    const row = this.rowOf(key);
    if (row < 0) return undefined;
    return this.published[row] ?? this.volumeOf(row);
  }

  /**
   * Makes room for claims yet to be applied, counted per minute (`startsUs[i]` the minute's start),
   * each bucket in one buffer of its final size: growing a week's thousand buckets by doubling,
   * interleaved, and then trimming them leaves the allocator with freed holes it keeps resident.
   * A bucket is ten minutes, so a minute lies within one bucket.
   */
  reserve(startsUs: ArrayLike<number>, counts: ArrayLike<number>): void {
    const perBucket = new Map<number, number>();
    for (let index = 0; index < startsUs.length; index++) {
      const bucket = Math.floor(startsUs[index]! / BUCKET_US);
      perBucket.set(bucket, (perBucket.get(bucket) ?? 0) + counts[index]!);
    }
    for (const index of [...perBucket.keys()].sort((a, b) => a - b)) {
      const count = perBucket.get(index)!;
      const bucket = this.buckets.get(index);
      if (bucket) bucket.reserveFor(count);
      else this.buckets.set(index, new Bucket(index * BUCKET_US, count));
    }
  }

  /**
   * Makes room for `count` campaigns at once (a load: as many as there are campaigns). Grown as they
   * came, the columns were copied a dozen times, and each copy freed left the allocator a hole; the
   * room no campaign takes is never written, so the kernel never backs it with memory.
   */
  reserveRows(count: number): void {
    if (count > this.keys.length) this.growRows(count);
    this.publicIds.reserve(count);
  }

  /** Contributions the buckets have room for (their size in memory is 20 bytes each). */
  get capacity(): number {
    let slots = 0;
    for (const bucket of this.buckets.values()) slots += bucket.capacity;
    return slots;
  }

  /** Gives back the room the buckets' growth left (after a load, when most will not grow again). */
  trim(): void {
    for (const bucket of this.buckets.values()) bucket.trim();
  }

  /**
   * Visits every campaign with claims in `window` now, in no particular order (explore ranks them its
   * own ways), without allocating per campaign: a week holds up to every campaign. `row` indexes
   * `publicIds`.
   */
  forEachWithClaimsIn(window: ClaimWindow, visit: (key: number, row: number, claims: number, usdMicros: number) => void): void {
    const claims = this.claims[WINDOW_INDEX[window]]!;
    const usd = this.usd[WINDOW_INDEX[window]]!;
    for (let row = 0; row < this.rowCount; row++) {
      if (claims[row]! > 0) visit(this.keys[row]!, row, claims[row]!, usd[row]!);
    }
  }

  /** Every claimant's totals over `window` now (live: see ClaimantTotals). */
  claimantTotals(window: ClaimantWindow): ClaimantTotals {
    const slot = CLAIMANT_WINDOWS.indexOf(window);
    return {
      count: this.claimantKeys.size,
      keys: this.claimantKeys,
      claims: this.claimantClaims[slot]!,
      usdMicros: this.claimantUsd[slot]!,
      listed: this.claimantsListed[slot]!,
      bounds: this.claimantBounds[slot]!,
    };
  }

  /** Campaigns with claims in `window`, highest volume first: a copy-on-write clone, fixed at this instant. */
  ranking(window: RankedWindow): Ranking {
    return this.rankings[window].clone();
  }

  /** Replaces which campaigns target which named contracts, and recounts the contracts' totals. */
  setContracts(contracts: ContractTargets[]): void {
    this.contracts = contracts;
    this.describedContracts = undefined;
    this.describedContract = [];
    this.targets = TargetIndex.of(contracts);
    for (let row = 0; row < this.rowCount; row++) this.targetOfRow[row] = this.targets.positionOf(this.keys[row]!);
    this.newestBlock = contracts.map((contract) => contract.blockTimestamps.reduce((newest, at) => Math.max(newest, at), 0));
    this.contractClaims = WINDOW_NAMES.map(() => new Array<number>(contracts.length).fill(0));
    this.contractUsd = WINDOW_NAMES.map(() => new Array<number>(contracts.length).fill(0));
    contracts.forEach((contract, index) => {
      for (const key of contract.campaignKeys) {
        const row = this.rowOf(key);
        if (row < 0) continue;
        for (let window = 0; window < WINDOW_COUNT; window++) {
          this.contractClaims[window]![index]! += this.claims[window]![row]!;
          this.contractUsd[window]![index]! += this.usd[window]![row]!;
        }
      }
    });
  }

  /**
   * The named contracts with their campaigns and claims per window now: over every targeting
   * campaign, or over `onlyCampaigns` (one creator's) when given. Without `onlyCampaigns` the same
   * array is returned until a contract's totals change (so callers may keep what they derive from
   * it by its identity); it and its volumes are frozen.
   */
  contractVolumes(onlyCampaigns?: ReadonlySet<number>): readonly ContractVolume[] {
    if (!onlyCampaigns) {
      this.describedContracts ??= Object.freeze(
        this.contracts.map(
          (contract, index) =>
            (this.describedContract[index] ??= Object.freeze(
              describeContract(contract, contract.campaignKeys.length, this.newestBlock[index]!, (window) => ({
                claims: this.contractClaims[window]![index]!,
                usdMicros: this.contractUsd[window]![index]!,
              })),
            )),
        ),
      );
      return this.describedContracts;
    }
    const volumes: ContractVolume[] = [];
    for (const contract of this.contracts) {
      let campaignCount = 0;
      let newest = 0;
      const claims = new Array<number>(WINDOW_COUNT).fill(0);
      const usd = new Array<number>(WINDOW_COUNT).fill(0);
      contract.campaignKeys.forEach((key, at) => {
        if (!onlyCampaigns.has(key)) return;
        campaignCount++;
        newest = Math.max(newest, contract.blockTimestamps[at]!);
        const row = this.rowOf(key);
        if (row < 0) return;
        for (let window = 0; window < WINDOW_COUNT; window++) {
          claims[window]! += this.claims[window]![row]!;
          usd[window]! += this.usd[window]![row]!;
        }
      });
      if (campaignCount > 0) {
        volumes.push(describeContract(contract, campaignCount, newest, (window) => ({ claims: claims[window]!, usdMicros: usd[window]! })));
      }
    }
    return volumes;
  }

  /** Whether a contribution at this time is in a window now or may enter one: time only moves forward. */
  private holds(claimedAtUs: number): boolean {
    return claimedAtUs > this.nowUs - LONGEST_US;
  }

  /** Counts the contributions in the windows they are in now, and stores each in its bucket, in time order. */
  private applyHeld(held: HeldContributions): void {
    if (held.length === 0) return;
    const { rows, claimants, claimedAtUs, usd, signs } = held;
    for (let at = 0; at < held.length; at++) {
      const time = claimedAtUs[at]!;
      if (time > this.nowUs) continue;
      for (let window = 0; window < WINDOW_COUNT; window++) {
        if (time > this.nowUs - WINDOW_US[window]!) this.add(rows[at]!, window, signs[at]!, usd[at]!, claimants[at]!);
      }
    }
    const order = held.inTimeOrder();
    const incoming = new BucketColumns(order.length);
    // Each run of one bucket's contributions, its times made offsets in the bucket.
    for (let start = 0; start < order.length; ) {
      const index = Math.floor(claimedAtUs[order[start]!]! / BUCKET_US);
      const bucketStartUs = index * BUCKET_US;
      let end = start;
      for (; end < order.length; end++) {
        const from = order[end]!;
        const time = claimedAtUs[from]!;
        if (Math.floor(time / BUCKET_US) !== index) break;
        const sign = signs[from]!;
        // Times are whole microseconds (what PostgreSQL stores); rounding only undoes a float's error.
        incoming.offsets[end] = Math.round(time - bucketStartUs);
        incoming.rows[end] = sign === 0 ? VALUE_ONLY + rows[from]! + 1 : sign * (rows[from]! + 1);
        incoming.usd[end] = usd[from]!;
        incoming.claimants[end] = claimants[from]!;
      }
      this.store(index, incoming, start, end);
      start = end;
    }
    this.publish();
  }

  /** `usd` is already signed; `sign` says whether a claim enters (+1) or leaves (-1) the count, or neither (0). */
  private add(row: number, window: number, sign: number, usd: number, claimant: number): void {
    this.claims[window]![row]! += sign;
    this.usd[window]![row]! += usd;
    const slot = CLAIMANT_SLOT[window]!;
    if (slot >= 0) {
      const claims = (this.claimantClaims[slot]![claimant]! += sign);
      const usdMicros = (this.claimantUsd[slot]![claimant]! += usd);
      const bounds = this.claimantBounds[slot]!;
      bounds.claims.raise(claimant, claims);
      bounds.usd.raise(claimant, usdMicros);
      if (claims > 0 !== claims - sign > 0) this.claimantsListed[slot]! += claims > 0 ? 1 : -1;
    }
    const target = this.targetOfRow[row]!;
    if (target >= 0) {
      this.describedContracts = undefined;
      const { starts, contracts } = this.targets;
      for (let at = starts[target]!; at < starts[target + 1]!; at++) {
        this.contractClaims[window]![contracts[at]!]! += sign;
        this.contractUsd[window]![contracts[at]!]! += usd;
        this.describedContract[contracts[at]!] = undefined;
      }
    }
    this.dirty.add(row);
  }

  /** The claimant's key, given it the first time it is seen. */
  private claimantFor(address: string): number {
    const key = this.claimantKeys.keyFor(address);
    if (key >= this.claimantClaims[0]!.length) {
      const size = Math.ceil((this.claimantClaims[0]!.length * 3) / 2);
      this.claimantClaims = this.claimantClaims.map((column) => grow(column, size));
      this.claimantUsd = this.claimantUsd.map((column) => grow(column, size));
      for (const bounds of this.claimantBounds) {
        bounds.claims.reserve(size);
        bounds.usd.reserve(size);
      }
    }
    return key;
  }

  /**
   * Gives new keys to the claimants that still have a contribution, in their order, and forgets the
   * others (their totals are all zero: every contribution of theirs has left the longest window).
   * Without it a long-running reader would keep every claimant it ever saw.
   */
  private compactClaimants(): void {
    const kept = new Int32Array(this.claimantKeys.size).fill(-1);
    for (const bucket of this.buckets.values()) {
      for (let position = 0; position < bucket.length; position++) kept[bucket.claimants[position]!] = 0;
    }
    const keys = this.claimantKeys.compact(kept);
    for (const bucket of this.buckets.values()) {
      for (let position = 0; position < bucket.length; position++) bucket.claimants[position] = kept[bucket.claimants[position]!]!;
    }
    const size = Math.max(1024, Math.ceil((keys.size * 3) / 2));
    const remap = <T extends Int32Array | Float64Array>(column: T): T => {
      const moved = new (column.constructor as new (size: number) => T)(size);
      kept.forEach((to, from) => {
        if (to >= 0) moved[to] = column[from]!;
      });
      return moved;
    };
    this.claimantClaims = this.claimantClaims.map(remap);
    this.claimantUsd = this.claimantUsd.map(remap);
    this.claimantBounds = CLAIMANT_WINDOWS.map(() => ({ claims: new BlockBounds(size), usd: new BlockBounds(size) }));
    this.claimantKeys = keys;
  }

  /** The campaign's row, or -1 when it has none. */
  private rowOf(key: number): number {
    return key >= 0 && key < this.rowByKey.length ? this.rowByKey[key]! : -1;
  }

  private rowFor(key: number, publicId: string): number {
    const existing = this.rowOf(key);
    if (existing >= 0) return existing;
    if (!Number.isInteger(key) || key < 0 || key >= 2 ** 31) throw new RangeError(`campaign key ${key} is not a serial number`);
    if (key >= this.rowByKey.length) {
      const known = this.rowByKey.length;
      this.rowByKey = grow(this.rowByKey, Math.max(key + 1, known * 2)).fill(-1, known);
    }
    const row = this.rowCount++;
    this.rowByKey[key] = row;
    if (row >= this.keys.length) this.growRows(Math.ceil((this.keys.length * 3) / 2));
    this.keys[row] = key;
    this.publicIds.add(publicId);
    this.published.push(undefined);
    this.targetOfRow[row] = this.targets.positionOf(key);
    return row;
  }

  private growRows(size: number): void {
    const rows = this.keys.length;
    this.keys = grow(this.keys, size);
    this.claims = this.claims.map((column) => grow(column, size));
    this.usd = this.usd.map((column) => grow(column, size));
    this.targetOfRow = grow(this.targetOfRow, size).fill(-1, rows);
  }

  private volumeOf(row: number): CampaignVolume {
    // Sized up front: pushed one by one, V8 grows the array past its length, and the rankings hold
    // tens of thousands of these.
    const counts = new Array<number>(2 * WINDOW_COUNT);
    for (let window = 0; window < WINDOW_COUNT; window++) {
      counts[window] = this.claims[window]![row]!;
      counts[WINDOW_COUNT + window] = this.usd[window]![row]!;
    }
    return new CampaignVolume(this.keys[row]!, row, counts);
  }

  /** Replaces the changed campaigns' entries in the rankings with their volumes now. */
  private publish(): void {
    for (const row of this.dirty) {
      const before = this.published[row];
      const after = this.volumeOf(row);
      let listed = false;
      for (const window of RANKED_WINDOWS) {
        const ranking = this.rankings[window];
        if (before && before.claims(window) > 0) ranking.delete(before);
        if (after.claims(window) > 0) {
          ranking.set(after, undefined);
          listed = true;
        }
      }
      this.published[row] = listed ? after : undefined;
    }
    this.dirty.clear();
  }

  /** Stores contributions `from` to `to` of `incoming`, one bucket's, in time order. */
  private store(index: number, incoming: BucketColumns, from: number, to: number): void {
    let bucket = this.buckets.get(index);
    if (!bucket) {
      bucket = new Bucket(index * BUCKET_US, Math.max(FIRST_CAPACITY, to - from));
      this.buckets.set(index, bucket);
    }
    bucket.merge(incoming, from, to);
    this.contributionCount += to - from;
  }

  /** Calls `visit` for every contribution in (fromUs, toUs]. */
  private sweep(fromUs: number, toUs: number, visit: (row: number, usd: number, sign: number, claimant: number) => void): void {
    const first = Math.floor(fromUs / BUCKET_US);
    const last = Math.floor(toUs / BUCKET_US);
    const visitBucket = (bucket: Bucket | undefined) => {
      if (!bucket) return;
      const { offsets, rows, usd, claimants } = bucket;
      // The bounds as offsets in this bucket: below 0 or past its minute where they lie outside it.
      const from = fromUs - bucket.startUs;
      const to = toUs - bucket.startUs;
      for (let position = upperBound(bucket, from); position < bucket.length; position++) {
        if (offsets[position]! > to) break;
        const signedRow = rows[position]!;
        if (signedRow > VALUE_ONLY) visit(signedRow - VALUE_ONLY - 1, usd[position]!, 0, claimants[position]!);
        else visit(Math.abs(signedRow) - 1, usd[position]!, Math.sign(signedRow), claimants[position]!);
      }
    };
    if (last - first < this.buckets.size) {
      for (let index = first; index <= last; index++) visitBucket(this.buckets.get(index));
    } else {
      // A long jump (the clock after a pause): visit the buckets there are rather than every minute in between.
      const indexes = [...this.buckets.keys()].filter((index) => index >= first && index <= last).sort((a, b) => a - b);
      for (const index of indexes) visitBucket(this.buckets.get(index));
    }
  }

  /** Forgets the buckets wholly before `cutoffUs`: they can never be in a window again. */
  private dropBefore(cutoffUs: number): void {
    const lastGone = Math.floor(cutoffUs / BUCKET_US) - 1;
    // Once a minute, not on every step: no contribution is ever stored below the cutoff.
    if (lastGone <= this.droppedThrough) return;
    this.droppedThrough = lastGone;
    for (const [index, bucket] of this.buckets) {
      if (index <= lastGone) {
        this.contributionCount -= bucket.length;
        this.buckets.delete(index);
      }
    }
    // Claimants outnumbering the contributions' by far: most have left the week for good.
    if (this.claimantKeys.size > 2 * Math.max(this.contributionCount, 1024)) this.compactClaimants();
  }
}

/**
 * Which named contracts each campaign targets, by campaign key: the keys sorted, and for the key at
 * position p the contracts `contracts[starts[p]]` to `contracts[starts[p + 1] - 1]` (indexes into
 * the ContractTargets list). Typed arrays rather than a Map of arrays: nearly every campaign targets
 * a named contract, and a Map of small arrays is that many heap objects for every major garbage
 * collection to trace, where three typed arrays are three objects and a fraction of the bytes.
 */
class TargetIndex {
  private constructor(
    readonly keys: Int32Array,
    readonly starts: Int32Array,
    readonly contracts: Int32Array,
  ) {}

  static of(targets: readonly ContractTargets[]): TargetIndex {
    if (targets.length > CONTRACT_SLOTS) throw new RangeError(`more than ${CONTRACT_SLOTS} named contracts`);
    // Each (key, contract) pair as one exactly representable number, key first, so a numeric sort groups them by key.
    const pairs = new Float64Array(targets.reduce((total, target) => total + target.campaignKeys.length, 0));
    let next = 0;
    targets.forEach((target, index) => {
      for (const key of target.campaignKeys) pairs[next++] = key * CONTRACT_SLOTS + index;
    });
    pairs.sort();
    const keys: number[] = [];
    const starts: number[] = [];
    const contracts = new Int32Array(pairs.length);
    pairs.forEach((pair, at) => {
      const key = Math.floor(pair / CONTRACT_SLOTS);
      if (keys.length === 0 || keys[keys.length - 1] !== key) {
        keys.push(key);
        starts.push(at);
      }
      contracts[at] = pair - key * CONTRACT_SLOTS;
    });
    starts.push(pairs.length);
    return new TargetIndex(Int32Array.from(keys), Int32Array.from(starts), contracts);
  }

  /** The key's position, or -1 when its campaign targets no named contract. */
  positionOf(key: number): number {
    let low = 0;
    let high = this.keys.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.keys[middle]! < key) low = middle + 1;
      else high = middle;
    }
    return low < this.keys.length && this.keys[low] === key ? low : -1;
  }
}

function describeContract(
  contract: ContractTargets,
  campaignCount: number,
  newestBlockTimestamp: number,
  totals: (window: number) => WindowTotals,
): ContractVolume {
  const windows = {} as Record<ClaimWindow, WindowTotals>;
  for (let window = 0; window < WINDOW_COUNT; window++) windows[WINDOW_NAMES[window]!] = totals(window);
  return { chainId: contract.chainId, address: contract.address, name: contract.name, campaignCount, newestBlockTimestamp, windows };
}

/** A copy of `column` with room for `size` values, the new ones zero. */
function grow<T extends Int32Array | Float64Array>(column: T, size: number): T {
  const bigger = new (column.constructor as new (size: number) => T)(size);
  bigger.set(column);
  return bigger;
}

/** Room for the contract index in a (key, contract) pair: 2^21 named contracts, keys up to 2^31 (exact below 2^53). */
const CONTRACT_SLOTS = 2 ** 21;

/** The first position whose offset in the bucket is greater than `offsetUs`. */
function upperBound(bucket: Bucket, offsetUs: number): number {
  const { offsets } = bucket;
  let low = 0;
  let high = bucket.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (offsets[middle]! <= offsetUs) low = middle + 1;
    else high = middle;
  }
  return low;
}
