import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { registerBuildInfo } from '../build-info.js';
import type { Progress } from './core-indexer.js';

/**
 * What the indexer reports about itself: Prometheus metrics per chain and core (indexed block, head
 * block, lag in blocks and seconds, logs per second, logs, claims and campaigns indexed, what was
 * skipped by kind, RPC errors)
 * and readiness: every core has indexed at least once and its lag is within the lag budget.
 *
 * The lag is the head's time minus the time of the last indexed block, plus the time since that head
 * was read: while the RPC cannot be read the last head seen grows old, and the chain goes on without
 * the indexer, so the lag grows with the time since the last successful head read.
 */

export interface CoreStatus {
  chainId: number;
  core: string;
  indexedBlock: string;
  headBlock: string;
  lagBlocks: number;
  lagSeconds: number;
  withinBudget: boolean;
  /** Why the core is over its budget; absent while within it. */
  reason?: string;
}

export class IndexerStatus {
  readonly registry = new Registry();
  private readonly cores = new Map<string, Progress>();
  private readonly rates = new Map<string, { at: number; logs: number }[]>();
  /** When an RPC call of each chain last failed (epoch milliseconds). */
  private readonly rpcFailedAt = new Map<number, number>();
  private readonly indexed: Gauge;
  private readonly head: Gauge;
  private readonly lagBlocks: Gauge;
  private readonly lagSeconds: Gauge;
  private readonly logsPerSecond: Gauge;
  private readonly logs: Counter;
  private readonly claims: Counter;
  private readonly campaigns: Counter;
  private readonly skipped: Counter;
  private readonly rpcErrors: Counter;

  constructor(
    private readonly lagBudgetSeconds: number,
    private readonly now: () => number = Date.now,
  ) {
    const registers = [this.registry];
    const labelNames = ['chain_id', 'core'] as const;
    collectDefaultMetrics({ register: this.registry });
    registerBuildInfo(this.registry);
    this.indexed = new Gauge({ name: 'indexer_indexed_block', help: 'Last block whose logs are in the database', labelNames, registers });
    this.head = new Gauge({ name: 'indexer_head_block', help: "The chain's head block as last seen", labelNames: ['chain_id'], registers });
    this.lagBlocks = new Gauge({ name: 'indexer_lag_blocks', help: 'Head block minus last indexed block', labelNames, registers });
    const cores = this.cores;
    const lagSecondsOf = (progress: Progress) => this.lagSecondsOf(progress);
    this.lagSeconds = new Gauge({
      name: 'indexer_lag_seconds',
      help: "Head block's time minus the last indexed block's time, plus the time since the head was read",
      labelNames,
      registers,
      // Computed when scraped: it grows while the RPC cannot be read and no progress is recorded.
      collect() {
        for (const progress of cores.values()) this.set({ chain_id: String(progress.chainId), core: progress.core }, lagSecondsOf(progress));
      },
    });
    this.logsPerSecond = new Gauge({ name: 'indexer_logs_per_second', help: 'Logs indexed per second over the last 10 seconds', labelNames, registers });
    this.logs = new Counter({ name: 'indexer_logs_total', help: 'Logs read and indexed', labelNames, registers });
    this.claims = new Counter({ name: 'indexer_claims_total', help: 'Claims written', labelNames, registers });
    this.campaigns = new Counter({ name: 'indexer_campaigns_total', help: 'Campaigns written (created or rewritten)', labelNames, registers });
    this.skipped = new Counter({
      name: 'indexer_skipped_total',
      help: 'What was read but not written, by kind: incentives, actions and allow lists of unknown types; claims of what was not indexed',
      labelNames: [...labelNames, 'kind'],
      registers,
    });
    this.rpcErrors = new Counter({ name: 'indexer_rpc_errors_total', help: 'Failed JSON-RPC calls (each retried)', labelNames: ['chain_id'], registers });
  }

  record(progress: Progress): void {
    const key = `${progress.chainId}:${progress.core}`;
    this.cores.set(key, progress);
    const labels = { chain_id: String(progress.chainId), core: progress.core };
    const lagBlocks = Number(progress.headBlock - progress.indexedBlock);
    this.indexed.set(labels, Number(progress.indexedBlock));
    this.head.set({ chain_id: labels.chain_id }, Number(progress.headBlock));
    this.lagBlocks.set(labels, lagBlocks);
    this.logs.inc(labels, progress.logs);
    this.claims.inc(labels, progress.claims);
    this.campaigns.inc(labels, progress.campaigns);
    for (const [kind, count] of Object.entries(progress.skipped)) this.skipped.inc({ ...labels, kind }, count);
    const now = this.now();
    const window = [...(this.rates.get(key) ?? []), { at: now, logs: progress.logs }].filter((entry) => now - entry.at <= 10_000);
    this.rates.set(key, window);
    this.logsPerSecond.set(labels, window.reduce((sum, entry) => sum + entry.logs, 0) / 10);
  }

  rpcError(chainId: number): void {
    this.rpcErrors.inc({ chain_id: String(chainId) });
    this.rpcFailedAt.set(chainId, this.now());
  }

  private lagSecondsOf(progress: Progress): number {
    // Caught up: the confirmations' blocks are behind by design, and their time counts; an idle
    // chain (no new blocks) lags only by the time since its head was last read (the poll interval).
    const sinceHeadRead = Math.max(0, Math.floor((this.now() - progress.headReadAt) / 1000));
    return Math.max(0, progress.headTimestamp - progress.indexedTimestamp) + sinceHeadRead;
  }

  private reasonOf(progress: Progress, lagSeconds: number): string {
    const failedAt = this.rpcFailedAt.get(progress.chainId) ?? 0;
    if (failedAt > progress.headReadAt) {
      return `the RPC of chain ${progress.chainId} could not be read since ${new Date(progress.headReadAt).toISOString()} (its last head read); its calls fail and are retried`;
    }
    return `${lagSeconds} s behind the head, over the lag budget of ${this.lagBudgetSeconds} s`;
  }

  /** Per core; `ready` when every expected core reported and is within the lag budget. */
  readiness(expectedCores: number): { ready: boolean; cores: CoreStatus[] } {
    const cores = [...this.cores.values()].map((progress) => {
      const lagSeconds = this.lagSecondsOf(progress);
      const withinBudget = lagSeconds <= this.lagBudgetSeconds;
      const core: CoreStatus = {
        chainId: progress.chainId,
        core: progress.core,
        indexedBlock: progress.indexedBlock.toString(),
        headBlock: progress.headBlock.toString(),
        lagBlocks: Number(progress.headBlock - progress.indexedBlock),
        lagSeconds,
        withinBudget,
      };
      if (!withinBudget) core.reason = this.reasonOf(progress, lagSeconds);
      return core;
    });
    return { ready: cores.length >= expectedCores && cores.every((core) => core.withinBudget), cores };
  }
}
