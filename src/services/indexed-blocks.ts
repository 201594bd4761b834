import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { Poller } from '../poller.js';
import type { ChainPosition } from '../repositories/indexed-blocks.repository.js';
import type { StartupStatus } from '../startup-status.js';

export interface IndexedBlocksOptions {
  /** Reads every chain's position from the database the answers are read from. */
  read: () => Promise<ChainPosition[]>;
  /** How often the positions are read while nobody waits for a block. */
  pollMs: number;
  /** How often they are read while a request waits for a block (read your writes). */
  waitPollMs: number;
  logger: Pick<Logger, 'warn'>;
  /**
   * Start-up work the background reads wait for: before the first migrations the table they read
   * does not exist, and a warning with its stack is what a newcomer's first start would show.
   */
  startup?: StartupStatus;
}

/** What became of a wait for a block: written, not within the time allowed, or a chain the indexer does not follow. */
export type WaitOutcome = 'written' | 'timed-out' | 'unknown-chain';

interface Waiter {
  chainId: number;
  blockNumber: number;
  settle: (outcome: WaitOutcome) => void;
}

/**
 * Where the data the API reads stands: for each chain the indexer follows, the last block written,
 * read from the database the answers come from (a hot standby's position is the standby's), every
 * `pollMs` in the background so that no request pays for it. A position read before a request's
 * queries is one its answer includes at least: the `Indexed-Blocks` header says it.
 *
 * A request that must include a given block (`minBlock`) waits here until a read shows it written;
 * while anyone waits the positions are read every `waitPollMs`, one read for all of them.
 */
export class IndexedBlocks {
  private positions = new Map<number, ChainPosition>();
  private headerText: string | undefined;
  private readonly waiters = new Set<Waiter>();
  private readonly poller: Poller;
  private reading: Promise<void> | undefined;
  /** The read that follows the one in flight, shared by the calls made during it. */
  private following: Promise<void> | undefined;
  private failing = false;

  constructor(private readonly options: IndexedBlocksOptions) {
    this.poller = new Poller({
      // No read until the start-up work is done (the API answers 503 until then): asked again soon.
      round: async () => {
        if (options.startup?.pending() === undefined) await this.refresh();
      },
      pause: () => (this.waiters.size > 0 || options.startup?.pending() !== undefined ? options.waitPollMs : options.pollMs),
      // refresh() reports its own failures; a round never throws.
      onError: () => undefined,
    });
  }

  /** The positions as last read, as an `Indexed-Blocks` header value (undefined before the first read or with no chain). */
  get header(): string | undefined {
    return this.headerText;
  }

  position(chainId: number): ChainPosition | undefined {
    return this.positions.get(chainId);
  }

  /** Whether the last read found any chain indexed: none means no indexer has written to this database. */
  get indexesAnyChain(): boolean {
    return this.positions.size > 0;
  }

  start(): void {
    this.poller.start();
  }

  async close(): Promise<void> {
    const stopped = this.poller.close();
    for (const waiter of this.waiters) waiter.settle('timed-out');
    this.waiters.clear();
    await Promise.all([stopped, this.reading, this.following]);
  }

  /**
   * Resolves once a read of the database shows `blockNumber` of `chainId` written ('written', at once
   * when the last read did), or after `timeoutMs` without ('timed-out'). A chain that no fresh read
   * knows is 'unknown-chain'.
   */
  async waitFor(chainId: number, blockNumber: number, timeoutMs: number): Promise<WaitOutcome> {
    if ((this.positions.get(chainId)?.blockNumber ?? -1) >= blockNumber) return 'written';
    await this.refresh();
    const known = this.positions.get(chainId);
    if (known === undefined) return 'unknown-chain';
    if (known.blockNumber >= blockNumber) return 'written';
    return new Promise<WaitOutcome>((resolve) => {
      const waiter: Waiter = {
        chainId,
        blockNumber,
        settle: (outcome) => {
          clearTimeout(deadline);
          this.waiters.delete(waiter);
          resolve(outcome);
        },
      };
      const deadline = setTimeout(() => waiter.settle('timed-out'), timeoutMs);
      this.waiters.add(waiter);
      // A wait brings the next read forward; nothing puts one off.
      this.poller.hurry(this.options.waitPollMs);
    });
  }

  /**
   * Reads the positions now: the promise settles after a read that began after this call, so a
   * caller sees every checkpoint committed before it asked. One read at a time: a call during a read
   * waits for it and then for the next one, which every such call shares.
   */
  refresh(): Promise<void> {
    if (this.reading === undefined) return this.read();
    this.following ??= this.reading.then(() => {
      this.following = undefined;
      return this.reading ?? this.read();
    });
    return this.following;
  }

  private read(): Promise<void> {
    const reading = this.options
      .read()
      .then((rows) => {
        this.failing = false;
        this.update(rows);
      })
      .catch((error: unknown) => {
        // Logged once per outage: the last positions read stay true lower bounds meanwhile.
        if (!this.failing) this.options.logger.warn({ err: error }, 'could not read the indexed blocks; keeping the last ones read');
        this.failing = true;
      })
      .finally(() => {
        this.reading = undefined;
      });
    this.reading = reading;
    return reading;
  }

  private update(rows: ChainPosition[]): void {
    this.positions = new Map(rows.map((row) => [row.chainId, row]));
    // RFC 8941 list: one integer item per chain with its block and that block's time as parameters.
    this.headerText =
      rows.length === 0 ? undefined : rows.map((row) => `${row.chainId};block=${row.blockNumber};time=${row.blockTimestamp}`).join(', ');
    for (const waiter of this.waiters) {
      if ((this.positions.get(waiter.chainId)?.blockNumber ?? -1) >= waiter.blockNumber) waiter.settle('written');
    }
  }
}

/**
 * The positions as the app reads them: every INDEXED_BLOCKS_POLL_MS, and while a request waits for a
 * block every WAIT_POLL_MS, or as often as the background reads if that is more often.
 */
/** How often a waiting request has the positions read: soon enough that a read-your-writes wait ends close to the commit. */
const WAIT_POLL_MS = 50;

export function createIndexedBlocks(
  config: Pick<Config, 'INDEXED_BLOCKS_POLL_MS'>,
  dependencies: Omit<IndexedBlocksOptions, 'pollMs' | 'waitPollMs'>,
): IndexedBlocks {
  return new IndexedBlocks({ ...dependencies, pollMs: config.INDEXED_BLOCKS_POLL_MS, waitPollMs: Math.min(WAIT_POLL_MS, config.INDEXED_BLOCKS_POLL_MS) });
}
