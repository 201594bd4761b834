import type { Logger } from 'pino';
import type { Hex } from 'viem';
import { getLogsSplitting, TOPICS } from '../chain/logs.js';
import type { AllowListEditSource } from '../chain/allow-list-calls.js';
import type { Rpc } from '../chain/rpc.js';
import type { BulkSession, DatabaseHandle } from '../db/client.js';
import { writeRecords } from '../ingest/direct.js';
import { markSignaturesUsed, signaturesOfRemovedClaims } from '../ingest/issued-signatures.js';
import type { IngestRecord } from '../ingest/records.js';
import { buildBatch } from './batch.js';
import { noneSkipped, type SkippedCounts } from './batch-state.js';
import type { RawLog } from './raw-log.js';
import { confirmBasis } from './basis.js';
import { rollbackRecords } from './rollback.js';
import {
  type Checkpoint,
  type CoreId,
  loadCheckpoint,
  recentBlocks,
  rewindState,
  writeState,
} from './store.js';

/**
 * Follows one BoostCore on one chain: block ranges from the checkpoint up to the head minus the
 * confirmations, each range's records written through the ingest module's direct path
 * (src/ingest/direct.ts) with the checkpoint in the same transaction. Before each range it compares the checkpoint's block hash
 * with the chain's: on a reorganisation it finds the fork among the remembered hashes, undoes
 * what the orphaned blocks wrote (the same way, from the journal) and continues from the fork.
 */

export interface CoreIndexerOptions {
  chainId: number;
  core: string;
  startBlock: bigint;
  confirmations: number;
  blockRange: number;
  /** Blocks below the checkpoint whose hashes and writes are remembered for reorganisations. */
  reorgDepth: number;
  /** How the edits of allow lists (setAllowed, setDenied) are found: INDEXER_ALLOW_LIST_EDITS; default transactions. */
  allowListEdits?: AllowListEditSource;
  rpc: Rpc;
  database: DatabaseHandle;
  logger: Logger;
  /** Progress after each committed range (metrics, progress bar). */
  onProgress?: (progress: Progress) => void;
  /**
   * Called with what a block range's claims need priced (their times, the assets of the range's
   * campaigns) before the range is written, so that they can be valued as they are written.
   */
  beforeClaims?: (chainId: number, needs: ClaimPriceNeeds) => Promise<void>;
}

export interface Progress {
  chainId: number;
  core: string;
  indexedBlock: bigint;
  indexedTimestamp: number;
  startBlock: bigint;
  headBlock: bigint;
  headTimestamp: number;
  /** When the head was read (epoch milliseconds): the lag grows from here while the RPC cannot be read. */
  headReadAt: number;
  safeBlock: bigint;
  logs: number;
  claims: number;
  campaigns: number;
  /** What this range did not write, by kind (logged with each one's address). */
  skipped: SkippedCounts;
  /** How long the range's write transaction took, in milliseconds; absent when no range was written. */
  writeMs?: number;
}

export interface ClaimPriceNeeds {
  times: Date[];
  assets: string[];
}

/** The claims' times and the assets of the campaigns a range writes (a range rewrites the campaigns it has claims of). */
function claimPriceNeeds(records: readonly IngestRecord[]): ClaimPriceNeeds {
  const times: Date[] = [];
  const assets = new Set<string>();
  for (const record of records) {
    if (record.kind === 'claim' && !('deleted' in record && record.deleted)) times.push(new Date(record.claimedAt));
    if (record.kind === 'campaign' && !('deleted' in record && record.deleted)) {
      for (const incentive of record.incentives) if (incentive.params.asset !== undefined) assets.add(incentive.params.asset.toLowerCase());
    }
  }
  return { times, assets: [...assets] };
}

/** A block's hash and time, as read from its header. */
interface BlockHeader {
  hash: Hex;
  timestamp: number;
}

export class ReorgTooDeepError extends Error {}

export type StepResult = 'progressed' | 'caught-up';

export class CoreIndexer {
  readonly id: CoreId;
  private checkpoint: Checkpoint | null = null;
  private range: number;
  private head = { number: 0n, timestamp: 0, readAt: 0 };

  constructor(private readonly options: CoreIndexerOptions) {
    this.id = { chainId: options.chainId, core: options.core.toLowerCase() };
    this.range = options.blockRange;
  }

  private get log() {
    return this.options.logger;
  }

  /** One range, or a rollback, or nothing when caught up. */
  async step(): Promise<StepResult> {
    const { rpc, database, confirmations } = this.options;
    this.checkpoint ??= await loadCheckpoint(database, this.id);
    // The head's header: its number, and its time for the lag in seconds.
    const latest = await rpc.withRetries('eth_getBlockByNumber latest', () => rpc.client.getBlock({ blockTag: 'latest' }));
    const head = latest.number;
    this.head = { number: head, timestamp: Number(latest.timestamp), readAt: Date.now() };
    const safe = head - BigInt(confirmations);
    if (this.checkpoint && (await this.rolledBack(this.checkpoint, safe))) return 'progressed';
    const indexed = this.checkpoint?.blockNumber ?? this.options.startBlock - 1n;
    if (indexed >= safe) {
      this.report(safe, indexed, { logs: 0, claims: 0, campaigns: 0, skipped: noneSkipped() });
      return 'caught-up';
    }
    const started = performance.now();
    const from = indexed + 1n;
    const to = from + BigInt(this.range) - 1n < safe ? from + BigInt(this.range) - 1n : safe;
    const { coreLogs, incentiveLogs, headers } = await this.readRange(from, to);
    const read = performance.now();
    const batch = await buildBatch(
      rpc,
      database,
      this.id,
      {
        coreLogs,
        incentiveLogs,
        timestamps: new Map([...headers].map(([number, header]) => [number, header.timestamp])),
        readAt: safe,
        from,
        to,
        allowListEdits: this.options.allowListEdits ?? 'transactions',
      },
      this.log,
    );
    await this.checkEditBlocks(headers, batch.editBlocks);
    const built = performance.now();
    const last = headers.get(to)!;
    const checkpoint: Checkpoint = { blockNumber: to, blockHash: last.hash, blockTimestamp: last.timestamp };
    const blocks = [...headers].map(([blockNumber, header]) => ({ blockNumber, blockHash: header.hash }));
    const state = { checkpoint, blocks, journal: batch.journal, incentives: batch.incentives, forgetBelow: to - BigInt(this.options.reorgDepth) };
    if (batch.claims > 0) await this.options.beforeClaims?.(this.id.chainId, claimPriceNeeds(batch.records));
    await writeRecords(database, batch.records, {
      invalid,
      // Its token records are what the tokens' contracts answered (src/indexer/tokens.ts).
      tokensFromChain: true,
      // An import that changed what the records were built from rolls this back (StaleBasisError).
      beforeMerge: (session) => confirmBasis(session, this.id, batch.basis),
      beforeCommit: async (session) => {
        await markSignaturesUsed(session, batch.records.filter((record) => record.kind === 'claim'));
        await writeState(session, this.id, state);
      },
    });
    this.checkpoint = checkpoint;
    const writeMs = performance.now() - built;
    this.log.debug(
      {
        chainId: this.id.chainId,
        core: this.id.core,
        from: from.toString(),
        to: to.toString(),
        logs: coreLogs.length + incentiveLogs.length,
        claims: batch.claims,
        campaigns: batch.campaigns,
        readMs: Math.round(read - started),
        buildMs: Math.round(built - read),
        writeMs: Math.round(writeMs),
      },
      'indexed a block range',
    );
    const counts = { logs: coreLogs.length + incentiveLogs.length, claims: batch.claims, campaigns: batch.campaigns, skipped: batch.skipped };
    this.report(safe, to, { ...counts, writeMs }, last.timestamp);
    return 'progressed';
  }

  /**
   * The range's logs, and the headers of its last block and of every block with logs: timestamps,
   * and hashes to detect a reorganisation later, and now (a log whose block hash is not the
   * header's came from another branch).
   */
  private async readRange(from: bigint, to: bigint): Promise<{ coreLogs: RawLog[]; incentiveLogs: RawLog[]; headers: Map<bigint, BlockHeader> }> {
    const { rpc } = this.options;
    let split = false;
    const onSplit = () => (split = true);
    const coreLogs = (await getLogsSplitting(
      rpc,
      { address: this.id.core as Hex, topic0: [TOPICS.BoostCreated, TOPICS.IncentiveAdded, TOPICS.BoostClaimed] },
      from,
      to,
      onSplit,
    )) as unknown as RawLog[];
    // What incentives emit (any contract: they are found among the boosts' incentives by address): the
    // Claimed of a claim, clawback or raffle draw, and ToppedUp. Each changes what an incentive holds.
    const incentiveLogs = (await getLogsSplitting(rpc, { topic0: [TOPICS.Claimed, TOPICS.ToppedUp] }, from, to, onSplit)) as unknown as RawLog[];
    // Shrink the range after the node refused one; grow back slowly.
    this.range = split ? Math.max(1, Math.floor(Number(to - from + 1n) / 2)) : Math.min(this.options.blockRange, Math.ceil(this.range * 1.5));

    const numbers = new Set<bigint>([to, ...[...coreLogs, ...incentiveLogs].map((log) => BigInt(log.blockNumber))]);
    const headers = new Map(
      await Promise.all(
        [...numbers].map(async (number) => {
          const block = await rpc.getBlock(number);
          return [number, { hash: block.hash!, timestamp: Number(block.timestamp) }] as const;
        }),
      ),
    );
    for (const log of [...coreLogs, ...incentiveLogs]) {
      const header = headers.get(BigInt(log.blockNumber));
      if (header && header.hash !== log.blockHash) throw new Error(`the chain changed while block ${BigInt(log.blockNumber)} was read; retrying`);
    }
    return { coreLogs, incentiveLogs, headers };
  }

  /**
   * The blocks with an allow-list edit among the range's headers, remembered for reorganisations
   * like the blocks with logs: an edit read from another branch than the range's logs is retried.
   */
  private async checkEditBlocks(headers: Map<bigint, BlockHeader>, editBlocks: ReadonlyMap<bigint, Hex | null>): Promise<void> {
    for (const [number, hash] of editBlocks) {
      const header: BlockHeader =
        headers.get(number) ?? (await this.options.rpc.getBlock(number).then((block) => ({ hash: block.hash!, timestamp: Number(block.timestamp) })));
      if (hash && header.hash !== hash) throw new Error(`the chain changed while block ${number} was read; retrying`);
      headers.set(number, header);
    }
  }

  private report(safe: bigint, indexed: bigint, counts: Pick<Progress, 'logs' | 'claims' | 'campaigns' | 'skipped' | 'writeMs'>, indexedTimestamp?: number) {
    this.options.onProgress?.({
      chainId: this.id.chainId,
      core: this.id.core,
      startBlock: this.options.startBlock,
      indexedBlock: indexed,
      // Nothing indexed yet: as old as the chain's start, for the lag.
      indexedTimestamp: indexedTimestamp ?? this.checkpoint?.blockTimestamp ?? 0,
      headBlock: this.head.number,
      headTimestamp: this.head.timestamp,
      headReadAt: this.head.readAt,
      safeBlock: safe,
      ...counts,
    });
  }

  /**
   * True when the checkpoint's block is no longer on the chain, after undoing the orphaned blocks and
   * reading again the incentives they touched (at the safe block, as a range reads them, or at the
   * fork if the new branch is shorter).
   */
  private async rolledBack(checkpoint: Checkpoint, safe: bigint): Promise<boolean> {
    const { rpc, database } = this.options;
    const current = await rpc.withRetries(`eth_getBlockByNumber ${checkpoint.blockNumber}`, () =>
      rpc.client.getBlock({ blockNumber: checkpoint.blockNumber }).catch((error: unknown) => {
        // The chain is now shorter than the checkpoint: the block is gone.
        if ((error as { name?: string }).name === 'BlockNotFoundError') return null;
        throw error;
      }),
    );
    if (current?.hash === checkpoint.blockHash) return false;
    const remembered = await recentBlocks(database, this.id);
    let fork: Checkpoint | null = null;
    for (const block of remembered) {
      if (block.blockNumber >= checkpoint.blockNumber && block.blockHash === checkpoint.blockHash) continue;
      const onChain = await rpc.withRetries(`eth_getBlockByNumber ${block.blockNumber}`, () =>
        rpc.client.getBlock({ blockNumber: block.blockNumber }).catch((error: unknown) => {
          if ((error as { name?: string }).name === 'BlockNotFoundError') return null;
          throw error;
        }),
      );
      if (onChain?.hash === block.blockHash) {
        fork = { blockNumber: block.blockNumber, blockHash: block.blockHash, blockTimestamp: Number(onChain.timestamp) };
        break;
      }
    }
    if (!fork) {
      throw new ReorgTooDeepError(
        `chain ${this.id.chainId}: block ${checkpoint.blockNumber} changed and none of the ${remembered.length} remembered blocks is on the chain any more; ` +
          'the reorganisation is deeper than INDEXER_REORG_DEPTH',
      );
    }
    const undo = await rollbackRecords(rpc, database, this.id, fork.blockNumber, safe > fork.blockNumber ? safe : fork.blockNumber);
    const rewound = fork;
    const removedClaims = undo.filter((record): record is Extract<IngestRecord, { kind: 'claim'; deleted: true }> => record.kind === 'claim' && 'deleted' in record);
    let releaseSignatures: (session: BulkSession) => Promise<void> = async () => undefined;
    await writeRecords(database, undo, {
      invalid,
      beforeMerge: async (session) => {
        releaseSignatures = await signaturesOfRemovedClaims(session, removedClaims);
      },
      beforeCommit: async (session) => {
        await releaseSignatures(session);
        await rewindState(session, this.id, rewound);
      },
    });
    this.log.warn(
      { chainId: this.id.chainId, core: this.id.core, from: checkpoint.blockNumber.toString(), fork: fork.blockNumber.toString(), undone: undo.length },
      'chain reorganisation: orphaned blocks undone',
    );
    this.checkpoint = fork;
    return true;
  }
}

/** A record that fails the import's validation is a bug of the indexer's. */
const invalid = (record: IngestRecord, error: string) => new Error(`the indexer built an invalid ${record.kind} record: ${error}`);
