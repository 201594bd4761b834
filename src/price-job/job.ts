import type { Logger } from 'pino';
import type { DatabaseHandle } from '../db/client.js';
import { type PriceWrite, writePrices } from '../ingest/prices.js';
import { NATIVE_TOKEN_ADDRESS, type OnRefused, type PriceQuote, type PriceSource, PriceSourceError, type RefusedPrice } from '../prices/source.js';
import type { PriceMetrics } from './metrics.js';
import { claimsWaiting, newestPrices, tokensToQuote, waitingHours } from './wanted.js';
import { sleep } from '../sleep.js';

/**
 * The price job: it keeps the price history (token_prices) filled from its sources, beside the
 * indexer, through the write path of prices (src/ingest/prices.ts), which values waiting claims and
 * moves each token's current price.
 *
 * Each round, for each source that is not backing off:
 * - every `pollMs`, the current prices of every known token and of the chains' native tokens;
 * - the hours whose claims wait for a price, newest first, `hoursPerRound` of them: a historical
 *   price asked for a quarter of an hour before the hour's earliest waiting claim, so that the price a
 *   source answers with (the nearest it has, or the newest at or before the time asked) is not after
 *   the claims, and is within the two hours a claim's price may be old for the rest of the hour. An hour a source has been asked about is asked again only after
 *   `retryHoursAfterMs`, doubling up to a day: a token no source prices does not cost a request a round.
 *   An hour for which a value was refused (by the source, as a price not > 0, or by the write path)
 *   is asked again at the next pass, after `pollMs`: the source had a price for it, a wrong one, and
 *   may answer a right one the next time it is asked. While it keeps refusing, that wait doubles up
 *   to `retryHoursAfterMs`, so that a token a source prices at 0 for good costs few requests.
 *
 * A source that fails (PriceSourceError) is left alone for a while: its Retry-After when it is
 * rate-limited (at most `maxRetryAfterMs`), otherwise an exponential backoff with full jitter. Claims
 * keep being indexed meanwhile; they wait, and are valued when the prices arrive.
 */

export interface PriceJobSettings {
  /** How often current prices are asked for. */
  pollMs: number;
  /** Hours of waiting claims asked about per source and round. */
  hoursPerRound: number;
  /**
   * Waiting claims a round looks through for those hours, the newest first, then further back
   * round after round: a round costs the same however many claims wait for prices no source has.
   */
  claimsPerLook: number;
  /** Chains whose native token is priced even before the database knows a token of theirs. */
  chains: readonly number[];
  baseBackoffMs: number;
  maxBackoffMs: number;
  /** Longest wait a Retry-After can impose. */
  maxRetryAfterMs: number;
  /** First wait before an hour a source has been asked about is asked again. */
  retryHoursAfterMs: number;
}

export interface PriceJobOptions {
  database: DatabaseHandle;
  sources: readonly PriceSource[];
  settings: PriceJobSettings;
  logger: Pick<Logger, 'info' | 'warn' | 'debug' | 'error'>;
  metrics?: PriceMetrics;
  /**
   * Held by the one process per database whose loop runs rounds (src/db/session-lock.ts). Without
   * it, the loop always runs them. `prepare()` and `runOnce()` do not ask for it: the first is the
   * indexer's own need before it writes claims, the second an explicit call.
   */
  lock?: { tryHold(): Promise<boolean> };
  now?: () => number;
  random?: () => number;
}

export interface PriceRound {
  written: number;
  refused: number;
  valued: number;
  /** Sources that failed this round. */
  failed: string[];
  /** Whether hours with waiting claims were left for the next round. */
  moreWaiting: boolean;
}

/**
 * Where the loop stands: `starting` before its first round; `running` after a round that reached the
 * database (a source may have failed); `standing-by` while another process holds the lock;
 * `failing` after a round that failed on the database.
 */
export interface PriceJobState {
  phase: 'starting' | 'running' | 'standing-by' | 'failing';
  /** When the loop last ran a round or found the lock held elsewhere. */
  lastRoundAt: Date | null;
}

export interface PriceJob {
  /** Runs rounds until `close()`: right away while waiting hours remain, else every `pollMs`. */
  start(): void;
  /** One round now (tests, `--once`). */
  runOnce(): Promise<PriceRound>;
  /**
   * New claims were written (the indexer calls it): the next round starts now rather than after
   * `pollMs`, so that the first claims of an hour are valued, and its price fetched, before more of
   * them are written without one (each is then valued as it is written).
   */
  wake(): void;
  /**
   * Before the indexer writes a range's claims: the historical prices of their hours (the range's
   * assets and the chain's native token), so that the claims are valued as they are written instead
   * of written waiting and valued again. An hour asked about once is not asked again for later claims
   * of it. Never throws: a source that fails backs off, and the claims wait as they would have.
   */
  prepare(chainId: number, needs: { times: readonly Date[]; assets: readonly string[] }): Promise<void>;
  /** Where the loop stands (readiness of the prices command). */
  state(): PriceJobState;
  /** Stops the loop and waits for the round under way. */
  close(): Promise<void>;
}

/** Hours remembered as asked; the oldest are forgotten first (they are asked again sooner). */
const MAX_REMEMBERED_HOURS = 100_000;
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** How far before the earliest waiting claim of an hour its historical price is asked for. */
const ASK_BEFORE_CLAIMS_MS = 15 * 60_000;
const MIN_WOKEN_ROUND_INTERVAL_MS = 1000;

interface SourceState {
  source: PriceSource;
  failures: number;
  /** The source is not asked before this time. */
  resumeAt: number;
  lastCurrentAt: number;
  /** `hour ms` -> when to ask again, the wait after that, and whether a value was refused the last time. */
  asked: Map<number, { at: number; waitMs: number; refused: boolean }>;
  /** Where the next look for waiting hours continues (null: at the newest). */
  cursor: Date | null;
  /** `chain:hour ms` -> the earliest claim time its price was asked for by prepare(). */
  prepared: Map<string, number>;
}

export function createPriceJob(options: PriceJobOptions): PriceJob {
  const { database, settings, logger, metrics } = options;
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const states: SourceState[] = options.sources.map((source) => ({
    source,
    failures: 0,
    resumeAt: 0,
    lastCurrentAt: Number.NEGATIVE_INFINITY,
    asked: new Map(),
    cursor: null,
    prepared: new Map(),
  }));
  const stopping = new AbortController();
  let running: Promise<void> | null = null;
  let round: Promise<PriceRound> | null = null;
  let woken = false;
  let newestRead = false;
  let endSleep: (() => void) | null = null;
  /** When a wake last started a round early. */
  let lastWokenRound = Number.NEGATIVE_INFINITY;
  const loopState: PriceJobState = { phase: 'starting', lastRoundAt: null };

  /** Asks the source and writes what it quoted; returns how many values were refused, by the source or the write path. */
  async function askAndWrite(state: SourceState, total: PriceRound, ask: (onRefused: OnRefused) => Promise<PriceQuote[]>): Promise<number> {
    const refusedBySource: RefusedPrice[] = [];
    const quotes = await ask((refused) => refusedBySource.push(refused));
    // The source logged each one as it refused it.
    total.refused += refusedBySource.length;
    metrics?.refused(state.source.name, refusedBySource.length);
    return refusedBySource.length + (await write(state, quotes, total));
  }

  /** Returns how many quotes the write path refused. */
  async function write(state: SourceState, quotes: PriceQuote[], total: PriceRound): Promise<number> {
    if (quotes.length === 0) return 0;
    const result: PriceWrite = await writePrices(database, quotes);
    total.written += result.written;
    total.refused += result.refused.length;
    total.valued += result.valued;
    metrics?.written(state.source.name, result.written);
    metrics?.refused(state.source.name, result.refused.length);
    metrics?.valued(result.valued);
    for (const refused of result.refused.slice(0, 10)) {
      logger.warn({ source: state.source.name, quote: refused.quote, reason: refused.reason }, 'price refused');
    }
    if (result.refused.length > 10) logger.warn({ source: state.source.name, more: result.refused.length - 10 }, 'more prices refused');
    return result.refused.length;
  }

  function backOff(state: SourceState, error: PriceSourceError): void {
    state.failures += 1;
    const exponential = Math.min(settings.maxBackoffMs, settings.baseBackoffMs * 2 ** (state.failures - 1));
    const waitMs =
      error.kind === 'rate-limited' && error.retryAfterMs !== undefined
        ? Math.min(error.retryAfterMs, settings.maxRetryAfterMs)
        : Math.round(exponential * random());
    state.resumeAt = now() + waitMs;
    metrics?.sourceError(state.source.name, error.kind);
    logger.warn({ source: state.source.name, kind: error.kind, status: error.status, waitMs, err: error.message }, 'price source failed: backing off');
  }

  function remember(state: SourceState, hour: Date, refused: boolean): void {
    const key = hour.getTime();
    const previous = state.asked.get(key);
    const waitMs = refused
      ? // Not "no price for this hour": the source had one, a wrong one. Asked again at the next pass;
        // while it keeps refusing, the wait doubles up to the first wait of an hour without a price.
        previous?.refused
        ? Math.max(settings.pollMs, Math.min(previous.waitMs * 2, settings.retryHoursAfterMs))
        : settings.pollMs
      : previous && !previous.refused
        ? Math.min(previous.waitMs * 2, DAY_MS)
        : settings.retryHoursAfterMs;
    state.asked.delete(key);
    state.asked.set(key, { at: now() + waitMs, waitMs, refused });
    if (state.asked.size > MAX_REMEMBERED_HOURS) state.asked.delete(state.asked.keys().next().value!);
  }

  async function runSource(state: SourceState, total: PriceRound): Promise<void> {
    const signal = stopping.signal;
    try {
      if (now() - state.lastCurrentAt >= settings.pollMs) {
        const tokens = await tokensToQuote(database, settings.chains);
        if (tokens.length > 0) await askAndWrite(state, total, (onRefused) => state.source.current(tokens, signal, onRefused));
        state.lastCurrentAt = now();
      }
      const look = await waitingHours(database, {
        before: state.cursor,
        limit: settings.hoursPerRound,
        maxClaims: settings.claimsPerLook,
        skip: (hour) => (state.asked.get(hour.getTime())?.at ?? 0) > now(),
      });
      if (look.next !== null) total.moreWaiting = true;
      for (const waiting of look.hours) {
        signal.throwIfAborted();
        const at = new Date(waiting.earliest.getTime() - ASK_BEFORE_CLAIMS_MS);
        const refused = await askAndWrite(state, total, (onRefused) => state.source.historical(waiting.tokens, at, signal, onRefused));
        remember(state, waiting.hour, refused > 0);
      }
      state.cursor = look.next;
      state.failures = 0;
    } catch (error) {
      if (!(error instanceof PriceSourceError)) throw error;
      total.failed.push(state.source.name);
      backOff(state, error);
    }
  }

  async function runRound(): Promise<PriceRound> {
    const total: PriceRound = { written: 0, refused: 0, valued: 0, failed: [], moreWaiting: false };
    for (const state of states) {
      if (state.resumeAt > now()) continue;
      await runSource(state, total);
    }
    if (metrics) {
      metrics.claimsWaiting(await claimsWaiting(database));
      // The newest prices move only when prices are written: read again then, not every round.
      if (total.written > 0 || !newestRead) {
        metrics.newest(await newestPrices(database, await tokensToQuote(database, settings.chains)));
        newestRead = true;
      }
    }
    return total;
  }

  function runOnce(): Promise<PriceRound> {
    // One round at a time: a test's runOnce waits for the loop's round under way.
    const next = (round ?? Promise.resolve()).catch(() => undefined).then(runRound);
    round = next;
    return next;
  }

  async function prepare(chainId: number, needs: { times: readonly Date[]; assets: readonly string[] }): Promise<void> {
    const earliest = new Map<number, number>();
    for (const time of needs.times) {
      const ms = time.getTime();
      const hour = Math.floor(ms / HOUR_MS) * HOUR_MS;
      earliest.set(hour, Math.min(earliest.get(hour) ?? ms, ms));
    }
    const tokens = [...new Set([...needs.assets.map((address) => address.toLowerCase()), NATIVE_TOKEN_ADDRESS])].map((address) => ({ chainId, address }));
    const total: PriceRound = { written: 0, refused: 0, valued: 0, failed: [], moreWaiting: false };
    for (const state of states) {
      if (state.resumeAt > now()) continue;
      try {
        for (const [hour, first] of [...earliest].sort(([a], [b]) => a - b)) {
          const key = `${chainId}:${hour}`;
          if ((state.prepared.get(key) ?? Number.POSITIVE_INFINITY) <= first) continue;
          // A refused value is remembered as asked all the same: the hour's later claims wait, and the
          // rounds ask again at the next pass (remember()), off the indexer's path.
          await askAndWrite(state, total, (onRefused) => state.source.historical(tokens, new Date(first - ASK_BEFORE_CLAIMS_MS), stopping.signal, onRefused));
          state.prepared.delete(key);
          state.prepared.set(key, first);
          if (state.prepared.size > MAX_REMEMBERED_HOURS) state.prepared.delete(state.prepared.keys().next().value!);
        }
      } catch (error) {
        if (error instanceof PriceSourceError) backOff(state, error);
        else if (!stopping.signal.aborted) logger.warn({ err: error, chainId }, 'prices for a range of claims could not be written: its claims wait for the price job');
      }
    }
  }

  /** A wake brings the next round forward, at most once a second: a backfill reports many ranges a second. */
  function untilWokenRound(): number {
    return Math.max(0, lastWokenRound + MIN_WOKEN_ROUND_INTERVAL_MS - now());
  }

  async function loop(): Promise<void> {
    const signal = stopping.signal;
    let failures = 0;
    while (!signal.aborted) {
      let waitMs = settings.pollMs;
      try {
        if (options.lock && !(await options.lock.tryHold())) {
          // Another process runs the rounds on this database; this one asks again every poll, and
          // takes over once that one stops.
          if (loopState.phase !== 'standing-by') logger.info({ pollMs: settings.pollMs }, 'another process runs the price job on this database: standing by until it stops');
          loopState.phase = 'standing-by';
        } else {
          if (loopState.phase === 'standing-by') logger.info('price job taking over: the process that ran it stopped');
          const result = await runOnce();
          loopState.phase = 'running';
          if (result.moreWaiting && result.failed.length < states.length) waitMs = 0;
          const resumes = states.map((state) => state.resumeAt - now()).filter((ms) => ms > 0);
          if (resumes.length === states.length) waitMs = Math.max(waitMs, Math.min(...resumes));
        }
        failures = 0;
        loopState.lastRoundAt = new Date(now());
      } catch (error) {
        if (signal.aborted) break;
        // The database, not a source: logged, and the next round after a backoff.
        failures += 1;
        loopState.phase = 'failing';
        waitMs = Math.min(settings.maxBackoffMs, settings.baseBackoffMs * 2 ** failures);
        logger.error({ err: error, waitMs }, 'price round failed');
      }
      let early = false;
      if (woken && untilWokenRound() < waitMs) {
        waitMs = untilWokenRound();
        early = true;
      }
      woken = false;
      await new Promise<void>((resolve) => {
        endSleep = () => {
          early = true;
          resolve();
        };
        sleep(waitMs, signal).then(resolve, resolve);
      });
      endSleep = null;
      if (early) lastWokenRound = now();
    }
  }

  return {
    start() {
      if (running) return;
      logger.info({ sources: states.map((state) => state.source.name), pollMs: settings.pollMs }, 'price job starting');
      running = loop();
    },
    runOnce,
    prepare,
    wake() {
      woken = true;
      const sleeping = endSleep;
      if (sleeping) void sleep(untilWokenRound(), stopping.signal).then(sleeping);
    },
    state: () => ({ ...loopState }),
    async close() {
      stopping.abort(new Error('price job closed'));
      await running;
      await round?.catch(() => undefined);
    },
  };
}

/** Rounds until no hour of waiting claims is left to ask about, or a source fails (`--once`). */
export async function roundsUntilDone(job: PriceJob): Promise<void> {
  for (;;) {
    const round = await job.runOnce();
    if (!round.moreWaiting || round.failed.length > 0) return;
  }
}
