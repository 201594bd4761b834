import type { Logger } from 'pino';
import type { DatabaseHandle } from '../db/client.js';
import type { AllowListRecord, CampaignRecord, DeletionRecord, UpsertRecord } from '../ingest/records.js';
import { type Basis, emptyBasis, remember } from './basis.js';
import { type CoreId, type IncentiveRow, type JournalEntry, storedAllowLists } from './store.js';

export type SkipKind = 'incentive' | 'action' | 'allowList' | 'claim';
export type SkippedCounts = Record<SkipKind, number>;
export const noneSkipped = (): SkippedCounts => ({ incentive: 0, action: 0, allowList: 0, claim: 0 });

/**
 * What a block range's records are built into, shared by the steps that build them (batch.ts,
 * campaign-record.ts, claim-records.ts): the records so far, the journal that undoes them, the
 * boosts' incentive contracts, what was skipped, and the basis (the stored rows they copy from).
 */
export class BatchState {
  readonly campaigns: CampaignRecord[] = [];
  /**
   * Of those, the ones built from getBoost() in this batch (created, or given an incentive): the
   * tokens they pay are read from their contracts. A campaign rewritten only because an incentive
   * emitted a log is not among them, so a token that answers nothing sensible is not read again on
   * every such range.
   */
  readonly builtCampaigns: CampaignRecord[] = [];
  /** By contract address: the allow lists this batch writes. */
  readonly allowLists = new Map<string, AllowListRecord>();
  readonly journal: JournalEntry[] = [];
  readonly incentiveRows: IncentiveRow[] = [];
  readonly skipped = noneSkipped();
  readonly basis: Basis = emptyBasis();

  constructor(
    readonly id: CoreId,
    readonly database: DatabaseHandle,
    private readonly logger: Logger,
  ) {}

  publicId(boostId: string): string {
    return `${this.id.chainId}:${this.id.core}:${boostId}`;
  }

  /** Something of the chain this batch does not write: counted by kind and logged. */
  skip(kind: SkipKind, fields: object, message: string): void {
    this.skipped[kind]++;
    this.logger.warn({ chainId: this.id.chainId, core: this.id.core, ...fields }, message);
  }

  /** What undoes a write of `blockNumber`: deleting what it created, or writing back what was there. */
  journalUndo(blockNumber: bigint, deletion: DeletionRecord, previous?: UpsertRecord): void {
    const { kind, deleted: _deleted, ...key } = deletion;
    this.journal.push({ blockNumber, kind, naturalKey: JSON.stringify(key), record: previous ?? deletion });
  }

  /** The allow list as this batch writes it, else as stored; a stored one read is remembered in the basis. */
  async allowList(contractAddress: string): Promise<AllowListRecord | undefined> {
    const built = this.allowLists.get(contractAddress);
    if (built) return built;
    const existing = (await storedAllowLists(this.database, this.id.chainId, [contractAddress])).get(contractAddress);
    remember(this.basis.allowLists, contractAddress, existing);
    return existing;
  }
}
