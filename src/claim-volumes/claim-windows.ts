import type pg from 'pg';
import type { Logger } from 'pino';
import {
  type ClaimChangeRow,
  type ClaimChunk,
  type ClaimLoader,
  type ClaimWindowsRepository,
  type FeedChanges,
  type FeedPosition,
  loadFrom,
  type TargetedContractRow,
} from './repository.js';
import { loadInWorker, type WorkerConnection } from './load-in-worker.js';
import { Poller } from '../poller.js';
import type { StartupStatus } from '../startup-status.js';
import type { FeedSignal } from './feed-listener.js';
import {
  type CampaignVolume,
  type ClaimantWindow,
  type ClaimContribution,
  ClaimVolumeState,
  type ContractTargets,
  type ContractVolume,
  type RankedWindow,
} from './state.js';
import type { ClaimWindow } from './repository.js';
import { type BoardPage, type BoardRequest, claimantBoardPage } from './claimant-board.js';

/**
 * Exact claim volumes over the trailing windows, at the instant of each request, without
 * aggregating the claims per request or per refresh.
 *
 * The volumes live in memory (ClaimVolumeState), loaded once, then kept current from the claim
 * change feed (`claim_changes`, written by a trigger in every transaction that writes claims). A
 * reader remembers the snapshot (`pg_current_snapshot()`) its state reflects and asks for the
 * changes not visible in it: commit-safe, whatever order concurrent writers commit in, deletes and
 * updates included. Every request first waits for a poll that started after it arrived, so a claim
 * committed before the request counts; concurrent requests share polls. A request costs one
 * indexed query returning the changes since the previous poll, whatever happened before that.
 *
 * A full load happens at start, after a bulk write (the feed then says "reload"), and when the
 * reader fell so far behind (5 minutes, half the feed's retention) that the feed may have been pruned.
 * Which named contracts campaigns target is reread in the background when the campaign set changed.
 *
 * The background job keeps an idle reader current. With a FeedSignal that is listening (a LISTEN on
 * the primary), it polls when the feed changed, at most once per `pollMs`, and otherwise only every
 * `idlePollMs`: an idle replica costs the database next to nothing, whatever the number of replicas.
 * Without one (PGlite, reads on a standby, a transaction pooler) it polls every `pollMs`.
 */
export interface ClaimWindowsOptions {
  /** How often the background job polls the feed, so an idle reader never falls behind; at most this often on signals. */
  pollMs: number;
  /** How often it polls while `signal` is listening and nothing was signalled (under MAX_FEED_GAP_MS). */
  idlePollMs?: number;
  /** Says when the feed changed; without it the job polls every `pollMs`. */
  signal?: FeedSignal;
  /**
   * Runs a feed read on a session of its own (ClaimFeedListener.readOnSession), or answers undefined
   * (no such session now): the feed is then read through the repository's pool.
   */
  readOnFeedSession?: <T>(read: (session: pg.Client) => Promise<T>) => Promise<T> | undefined;
  /** How often the targets of named contracts are reread, when the campaign set changed. */
  targetsRefreshMs: number;
  logger: Pick<Logger, 'info' | 'warn'>;
  /** Start-up work (migrations) that must finish before the first load. */
  startup?: StartupStatus;
  /**
   * Where a worker thread connects to read the claims of a full load (loadInWorker: the server's
   * default on PostgreSQL); without it they are read on this thread, through the repository.
   */
  workerConnection?: WorkerConnection;
  clock?: () => Date;
}

/** A load reads a week of claims: a job's time budget, not an API request's. */
const LOAD_TIMEOUT_MS = 120_000;

/** Half the feed's retention (prune_claim_changes keeps 10 minutes): a reader further behind reloads. */
const MAX_FEED_GAP_MS = 5 * 60_000;

/** Why a full load ran: its label (the `claim_volume_loads_total` metric's), and what the log says. */
export const LOAD_REASONS = {
  start: 'start',
  behind: 'fell behind the change feed',
  large_write: 'a large write',
  bulk_reload: 'claims reloaded in bulk',
} as const;
export type LoadReason = keyof typeof LOAD_REASONS;

export class ClaimWindows {
  private state: ClaimVolumeState | undefined;
  private position: FeedPosition | undefined;
  private version: string | undefined;
  private targets: { version: string; contracts: ContractTargets[] } | undefined;

  private polling: Promise<void> | undefined;
  /** What the requests that arrived while `polling` was under way wait for: the poll that starts when it ends. */
  private next: { promise: Promise<void>; resolve: () => void; reject: (error: unknown) => void } | undefined;
  private refreshingTargets: Promise<void> | undefined;
  private readonly poller: Poller;
  private lastTargetsCheck = 0;
  private started = false;
  private closed = false;
  private signalled = false;
  private lastTickAt = 0;
  private readonly closing = new AbortController();
  private readonly loadCounts = Object.fromEntries(Object.keys(LOAD_REASONS).map((reason) => [reason, 0])) as Record<LoadReason, number>;

  constructor(
    private readonly repository: ClaimWindowsRepository,
    private readonly options: ClaimWindowsOptions,
  ) {
    this.poller = new Poller({
      round: () => this.tick(),
      pause: () => {
        // Idle only once loaded, listening, and with nothing signalled during this tick.
        const idle = this.state !== undefined && options.signal?.listening === true && !this.poller.failing && !this.signalled;
        return idle ? (options.idlePollMs ?? options.pollMs) : options.pollMs;
      },
      // Logged once per outage; requests meanwhile get the database's error (503) from their own poll.
      onError: (error, again) => {
        if (!again) options.logger.warn({ err: error }, 'claim volume poll failed; retrying');
      },
      onRecovered: () => options.logger.info('claim volumes are current again'),
    });
  }

  /**
   * Whether the volumes are loaded, waiting up to `timeoutMs` for the first load (begun now if the
   * background job has not begun it yet). Readiness asks this.
   */
  async whenLoaded(timeoutMs: number): Promise<boolean> {
    if (this.state) return true;
    if (this.closed) return false;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    try {
      return await Promise.race([this.sync().then(() => true, () => false), timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The full loads finished so far, by reason. A load reads a week of claims and briefly holds a
   * second state beside the current one: outside the start, each should be rare.
   */
  get loads(): Readonly<Record<LoadReason, number>> {
    return { ...this.loadCounts };
  }

  /** Starts the background job: the first load, then polls as the class comment says. */
  start(): void {
    if (this.closed || this.started) return;
    this.started = true;
    this.options.signal?.onChange(() => this.signal());
    this.options.signal?.start();
    this.poller.start();
  }

  /** Stops the background job and waits for the work in flight. */
  async close(): Promise<void> {
    this.closed = true;
    // Stops the timer at once; a load under way ends at the abort.
    const stopped = this.poller.close();
    this.closing.abort();
    await this.options.signal?.close();
    await Promise.allSettled([stopped, this.polling, this.next?.promise, this.refreshingTargets]);
  }

  /**
   * The feed changed: poll soon, but not sooner than `pollMs` after the last background poll began.
   * A tick under way is followed by the next at `pollMs` (pause() sees `signalled`).
   */
  private signal(): void {
    if (this.closed) return;
    this.signalled = true;
    this.poller.hurry(Math.max(0, this.lastTickAt + this.options.pollMs - Date.now()));
  }

  /**
   * The volumes with every claim change committed before this call, at `now` (or at the latest
   * instant another request moved them to, if later: time only moves forward).
   */
  async at(now: Date): Promise<WindowView> {
    await this.sync();
    const state = this.state!;
    state.advanceTo(now.getTime());
    return new WindowView(state);
  }

  /** Resolves after a poll that started after this call. */
  private sync(): Promise<void> {
    if (!this.polling) return this.poll();
    if (!this.next) {
      let resolve!: () => void;
      let reject!: (error: unknown) => void;
      const promise = new Promise<void>((resolvePromise, rejectPromise) => {
        resolve = resolvePromise;
        reject = rejectPromise;
      });
      this.next = { promise, resolve, reject };
    }
    return this.next.promise;
  }

  private poll(): Promise<void> {
    const polling = this.pollOnce();
    this.polling = polling;
    // The first reaction to this poll, ahead of the requests that wait for it: the next poll's read
    // leaves for the database before they build their answers, and its round trip overlaps with that
    // work instead of following it. (Chained after them, every poll waited for a whole batch of
    // answers to be built and sent; under load the database's answer time and the server's time per
    // batch added up, and requests that read claim volumes waited for both, twice.)
    const ended = () => this.pollEnded(polling);
    polling.then(ended, ended);
    return polling;
  }

  private pollEnded(polling: Promise<void>): void {
    if (this.polling !== polling) return;
    this.polling = undefined;
    const next = this.next;
    if (!next) return;
    this.next = undefined;
    this.poll().then(next.resolve, next.reject);
  }

  private async pollOnce(): Promise<void> {
    if (!this.state || !this.position) return this.load('start');
    const result = await this.readFeed(this.position);
    if (result.position.atMs - this.position.atMs > MAX_FEED_GAP_MS) return this.load('behind');
    if (result.changes === undefined) return this.load('large_write');
    if (result.changes.some((change) => change.campaign_key === null)) return this.load('bulk_reload');
    this.state.apply(result.changes.map(toContribution));
    this.position = result.position;
    this.version = result.version;
  }

  private async readFeed(since: FeedPosition): Promise<FeedChanges> {
    const direct = this.options.readOnFeedSession?.((session) => this.repository.changesSince(since, undefined, session));
    if (direct !== undefined) {
      try {
        return await direct;
      } catch (error) {
        // The session reconnects; this read, and those until it is back, go through the pool.
        this.options.logger.warn({ err: error }, 'claim feed read on its own session failed; reading through the pool');
      }
    }
    return this.repository.changesSince(since);
  }

  private async load(reason: LoadReason): Promise<void> {
    const started = Date.now();
    const now = this.now();
    const state = new ClaimVolumeState(now.getTime());
    const { workerConnection } = this.options;
    const load: ClaimLoader = workerConnection
      ? loadInWorker(workerConnection)
      : (from, timeoutMs, onChunk) => this.repository.load(from, timeoutMs, onChunk);
    const applyChunk = async (chunk: ClaimChunk) => {
      if (chunk.perMinute) {
        state.reserve(chunk.perMinute.starts_us, chunk.perMinute.counts);
        state.reserveRows(chunk.perMinute.campaigns);
      }
      state.applyChunk(chunk);
      // A week of claims is applied in slices: requests waiting on other things run in between.
      await new Promise((resolve) => setImmediate(resolve));
    };
    const loaded = await load(loadFrom(now), LOAD_TIMEOUT_MS, applyChunk, this.closing.signal);
    state.trim();
    if (this.targets?.version !== loaded.version) {
      this.targets = { version: loaded.version, contracts: (await this.repository.targetedContracts()).map(toTargets) };
    }
    state.setContracts(this.targets.contracts);
    this.state = state;
    this.position = loaded.position;
    this.version = loaded.version;
    this.loadCounts[reason]++;
    const thread = workerConnection ? 'worker' : 'main';
    this.options.logger.info({ reason: LOAD_REASONS[reason], thread, claims: state.size, slots: state.capacity, ms: Date.now() - started }, 'claim volumes loaded');
  }

  /** One round of the background job: a poll of the feed, then the targets if the campaigns changed. */
  private async tick(): Promise<void> {
    this.signalled = false;
    this.lastTickAt = Date.now();
    if (this.options.startup?.pending() !== undefined) return;
    await this.sync();
    await this.refreshTargetsIfChanged();
  }

  private refreshTargetsIfChanged(): Promise<void> | undefined {
    const now = Date.now();
    if (this.version === undefined || this.targets?.version === this.version) return undefined;
    if (now - this.lastTargetsCheck < this.options.targetsRefreshMs) return undefined;
    this.lastTargetsCheck = now;
    const version = this.version;
    this.refreshingTargets = this.repository
      .targetedContracts()
      .then((rows) => {
        // Read after the version: a later change makes the next check read them again.
        this.targets = { version, contracts: rows.map(toTargets) };
        this.state?.setContracts(this.targets.contracts);
      })
      .finally(() => {
        this.refreshingTargets = undefined;
      });
    return this.refreshingTargets;
  }

  private now(): Date {
    return (this.options.clock ?? (() => new Date()))();
  }
}

/** A change of a claim (reload markers are handled before). */
function toContribution(row: ClaimChangeRow): ClaimContribution {
  return {
    campaignKey: row.campaign_key!,
    publicId: row.public_id ?? '',
    claimant: row.claimant!,
    claimedAtUs: row.claimed_at_us,
    usdMicros: row.usd_micros,
    sign: row.sign,
  };
}

function toTargets(row: TargetedContractRow): ContractTargets {
  return {
    chainId: row.chain_id,
    address: row.address,
    name: row.name,
    campaignKeys: Int32Array.from(row.campaign_keys),
    blockTimestamps: Float64Array.from(row.block_timestamps),
  };
}

/**
 * The volumes as of one request. A ranking is a copy-on-write clone taken the first time the request
 * asks for it (right after `at()` resolves, before any other await: see listTrending), so a trending
 * request that reads it across database round trips sees one instant; a request that never ranks
 * (explore, the reward kit) takes no clone, which would make the next claim copy the rankings' paths.
 * `volume` and `contracts` read the state as it is when called.
 */
export class WindowView {
  private readonly rankings: Partial<Record<RankedWindow, ReturnType<ClaimVolumeState['ranking']>>> = {};

  constructor(private readonly state: ClaimVolumeState) {}

  volume(key: number): CampaignVolume | undefined {
    return this.state.volume(key);
  }

  /** Campaigns with claims in `window`, highest USD volume first, ties on public ID, as they were at the first call. */
  ranked(window: RankedWindow): IterableIterator<CampaignVolume> {
    const ranking = (this.rankings[window] ??= this.state.ranking(window));
    return ranking.keys();
  }

  contracts(onlyCampaigns?: ReadonlySet<number>): readonly ContractVolume[] {
    return this.state.contractVolumes(onlyCampaigns);
  }

  /** One page of the claimants of `window`, ranked (claimant-board.ts), as the state is when called. */
  claimantBoard(window: ClaimantWindow, request: BoardRequest): BoardPage {
    return claimantBoardPage(this.state.claimantTotals(window), request);
  }

  /** The instant the view's volumes are at (epoch milliseconds). */
  get instantMs(): number {
    return this.state.instantMs;
  }

  /** Visits every campaign with claims in `window`, unordered; `row` is what comparePublicIds and onChain take. */
  forEachWithClaimsIn(window: ClaimWindow, visit: (key: number, row: number, claims: number, usdMicros: number) => void): void {
    this.state.forEachWithClaimsIn(window, visit);
  }

  /** The public IDs of the campaigns at rows `a` and `b` in binary order (negative: `a`'s first). */
  comparePublicIds(a: number, b: number): number {
    return this.state.publicIds.compare(a, b);
  }

  /** The public ID of the campaign at `row`. */
  publicId(row: number): string {
    return this.state.publicIds.get(row);
  }

  /** Whether the campaign at `row` is on one of `chainIds`. */
  onChain(row: number, chainIds: ReadonlySet<number>): boolean {
    return this.state.publicIds.onChain(row, chainIds);
  }
}
