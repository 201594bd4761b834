import { decodeEventLog } from 'viem';
import { incentiveClaimedEvent } from '../chain/abi.js';
import { TOPICS } from '../chain/logs.js';
import type { CampaignRecord, ClaimRecord } from '../ingest/records.js';
import type { BatchState } from './batch-state.js';
import type { RawLog } from './raw-log.js';
import { hasClaimed, type KnownIncentive } from './store.js';
import type { MemberChange } from './allow-list-edits.js';

/**
 * Claims from a block range's logs: one from each BoostClaimed, with the amount of the incentive's
 * Claimed log before it in the same transaction; one for each raffle draw; and the members an
 * AllowListIncentive's claims add to its allow list.
 */

/** A BoostClaimed log, decoded. */
export interface ClaimEvent {
  log: RawLog;
  blockNumber: bigint;
  logIndex: number;
  boostId: string;
  incentiveId: number;
  claimant: string;
}

export interface BuiltClaim {
  record: ClaimRecord;
  blockNumber: bigint;
}

/** What a range's claims are built from, besides its logs. */
export interface ClaimContext {
  state: BatchState;
  /** By boost id: its incentives by incentive id (address, position among the written ones). */
  incentivesOf: ReadonlyMap<string, readonly KnownIncentive[]>;
  /** By boost id: the campaign record whose incentives' parameters apply (as written by this batch, else as stored). */
  paramsOf: ReadonlyMap<string, CampaignRecord>;
  /** By incentive contract: the incentives of boosts created before the range that emitted a log in it. */
  changedIncentives: ReadonlyMap<string, { boostId: string; position: number }>;
  timestamps: ReadonlyMap<bigint, number>;
  /** By transaction hash (lowercase): its index in its block, from the range's logs. */
  transactionIndexes: ReadonlyMap<string, number>;
}

interface PaidLog {
  recipient: string;
  amount: bigint;
  log: RawLog;
  logIndex: number;
  used: boolean;
}

const lower = (value: string) => value.toLowerCase();

/** Every claim of the range: those of its BoostClaimed logs, then the raffle draws'. */
export async function buildClaims(context: ClaimContext, events: readonly ClaimEvent[], incentiveLogs: readonly RawLog[]): Promise<BuiltClaim[]> {
  const claimedBy = claimedLogs(incentiveLogs);
  const claims = boostClaims(context, events, claimedBy);
  claims.push(...(await rafflePayouts(context, claimedBy, claims)));
  return claims;
}

/** Claimed logs by transaction, incentive and recipient, in log order; each pays one BoostClaimed after it. */
function claimedLogs(incentiveLogs: readonly RawLog[]): Map<string, PaidLog[]> {
  const claimedBy = new Map<string, PaidLog[]>();
  for (const log of incentiveLogs) {
    const claimed = decodeClaimed(log);
    if (!claimed) continue;
    const key = `${log.transactionHash}:${lower(log.address)}:${claimed.recipient}`;
    const list = claimedBy.get(key) ?? [];
    list.push({ ...claimed, log, logIndex: Number(log.logIndex), used: false });
    claimedBy.set(key, list);
  }
  return claimedBy;
}

function boostClaims(context: ClaimContext, events: readonly ClaimEvent[], claimedBy: Map<string, PaidLog[]>): BuiltClaim[] {
  const { state } = context;
  const claims: BuiltClaim[] = [];
  for (const event of events) {
    const { boostId, incentiveId } = event;
    const incentive = context.incentivesOf.get(boostId)?.[incentiveId];
    if (!incentive || incentive.position === null || !context.paramsOf.has(boostId)) {
      state.skip('claim', { boostId, incentiveId, txHash: event.log.transactionHash }, 'skipping a claim of a boost or incentive not indexed');
      continue;
    }
    const paid = (claimedBy.get(`${event.log.transactionHash}:${incentive.address}:${event.claimant}`) ?? [])
      .filter((claimed) => !claimed.used && claimed.logIndex < event.logIndex)
      .at(-1);
    if (paid) paid.used = true;
    // Without usdValue and ethValueWei: the write values the claim from the prices at its time (claim_value()).
    claims.push({
      blockNumber: event.blockNumber,
      record: {
        kind: 'claim',
        chainId: state.id.chainId,
        txHash: lower(event.log.transactionHash),
        logIndex: event.logIndex,
        campaign: state.publicId(boostId),
        incentivePosition: incentive.position,
        claimant: event.claimant,
        // An AllowListIncentive pays nothing and emits no Claimed.
        amount: (paid?.amount ?? 0n).toString(),
        claimedAt: new Date(context.timestamps.get(event.blockNumber)! * 1000).toISOString(),
        blockNumber: Number(event.blockNumber),
      },
    });
  }
  return claims;
}

/**
 * A RAFFLE's draw pays its winner with a Claimed that no BoostClaimed goes with: a claim of the
 * winner, at the draw's transaction and log. A clawback's Claimed has no BoostClaimed either, but
 * a RAFFLE can only be clawed back before its first entry: a recipient who entered is a winner.
 */
async function rafflePayouts(context: ClaimContext, claimedBy: Map<string, PaidLog[]>, claims: readonly BuiltClaim[]): Promise<BuiltClaim[]> {
  const { state } = context;
  const incentiveAt = new Map<string, { boostId: string; position: number }>();
  for (const [boostId, list] of context.incentivesOf) {
    for (const incentive of list) if (incentive && incentive.position !== null) incentiveAt.set(incentive.address, { boostId, position: incentive.position });
  }
  for (const [address, at] of context.changedIncentives) incentiveAt.set(address, at);
  const payouts: BuiltClaim[] = [];
  for (const paid of [...claimedBy.values()].flat()) {
    const at = paid.used ? undefined : incentiveAt.get(lower(paid.log.address));
    const incentive = at && context.paramsOf.get(at.boostId)?.incentives[at.position];
    if (!at || incentive?.type !== 'ERC20Incentive' || (incentive.params as Record<string, unknown>).strategy !== 1) continue;
    const campaign = state.publicId(at.boostId);
    const entered =
      claims.some(({ record }) => record.campaign === campaign && record.incentivePosition === at.position && record.claimant === paid.recipient) ||
      (await hasClaimed(state.database, campaign, at.position, paid.recipient));
    if (!entered) continue;
    const blockNumber = BigInt(paid.log.blockNumber);
    payouts.push({
      blockNumber,
      record: {
        kind: 'claim',
        chainId: state.id.chainId,
        txHash: lower(paid.log.transactionHash),
        logIndex: paid.logIndex,
        campaign,
        incentivePosition: at.position,
        claimant: paid.recipient,
        amount: paid.amount.toString(),
        claimedAt: new Date(context.timestamps.get(blockNumber)! * 1000).toISOString(),
        blockNumber: Number(blockNumber),
      },
    });
  }
  return payouts;
}

/**
 * An AllowListIncentive's claim adds its claimant to the incentive's allow list (setAllowed): a
 * change of the list's members at the claim's place in the chain, applied with the range's other
 * edits (allow-list-edits.ts). A list no campaign uses is not stored, and nothing shows it.
 */
export function allowListJoins(context: ClaimContext, claims: readonly BuiltClaim[]): MemberChange[] {
  const joins: MemberChange[] = [];
  for (const { record, blockNumber } of claims) {
    const boostId = record.campaign.split(':')[2]!;
    const incentive = context.paramsOf.get(boostId)?.incentives[record.incentivePosition];
    const list = (incentive?.params as Record<string, unknown> | undefined)?.allowListAddress;
    if (incentive?.type !== 'AllowListIncentive' || typeof list !== 'string') continue;
    joins.push({
      list: lower(list),
      blockNumber,
      transactionIndex: context.transactionIndexes.get(record.txHash) ?? 0,
      callIndex: record.logIndex,
      changes: [{ address: record.claimant, member: true }],
      onlyType: 'SimpleAllowList',
    });
  }
  return joins;
}

/**
 * Claimed(address indexed recipient, bytes data): data is ABI-encoded bytes (offset, length, then
 * asset or venue (20 bytes) ‖ recipient (20 bytes) ‖ amount (32 bytes)). Null when it is not that shape.
 */
function decodeClaimed(log: RawLog): { recipient: string; amount: bigint } | null {
  if (log.topics[0] !== TOPICS.Claimed || log.topics.length !== 2) return null;
  const hex = log.data.slice(2);
  const length = hex.length >= 128 ? Number.parseInt(hex.slice(64, 128), 16) : 0;
  if (length < 72 || hex.length < 128 + 144) {
    // Not the usual packing: let the ABI decoder say what it is.
    const event = decodeEventLog({ abi: incentiveClaimedEvent, data: log.data, topics: log.topics });
    const data = event.args.data;
    if ((data.length - 2) / 2 < 72) return null;
    return { recipient: lower(event.args.recipient), amount: BigInt(`0x${data.slice(2 + 80, 2 + 144)}`) };
  }
  return { recipient: `0x${log.topics[1]!.slice(26)}`.toLowerCase(), amount: BigInt(`0x${hex.slice(128 + 80, 128 + 144)}`) };
}
