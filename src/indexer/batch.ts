import type { Logger } from 'pino';
import { decodeEventLog, type Hex } from 'viem';
import { boostCoreEvents } from '../chain/abi.js';
import { TOPICS } from '../chain/logs.js';
import type { AllowListEditSource } from '../chain/allow-list-calls.js';
import type { Rpc } from '../chain/rpc.js';
import type { DatabaseHandle } from '../db/client.js';
import type { CampaignRecord, UpsertRecord } from '../ingest/records.js';
import type { Basis } from './basis.js';
import { BatchState, type SkippedCounts } from './batch-state.js';
import { buildCampaign, rereadIncentives } from './campaign-record.js';
import { allowListJoins, buildClaims, type ClaimEvent } from './claim-records.js';
import { followListEdits } from './allow-list-edits.js';
import type { RawLog } from './raw-log.js';
import { type CoreId, type IncentiveRow, incentivesAt, type JournalEntry, type KnownIncentive, knownIncentives, storedCampaigns } from './store.js';
import { chainTokenRecords } from './tokens.js';

/**
 * One block range's logs turned into ingest records (docs/writing-data.md): a campaign from each
 * BoostCreated with getBoost() and its components' getters (campaign-record.ts); a rewrite of the
 * campaign for each IncentiveAdded that adds to an existing boost, and for each incentive that
 * emitted Claimed (a claim, a clawback, a raffle draw) or ToppedUp, with that incentive's getters and
 * balance read again; a claim from each BoostClaimed (claim-records.ts); the allow lists' members as
 * the range's edits and AllowListIncentive claims change them (allow-list-edits.ts). Also returns the journal
 * (what undoes these blocks' writes if they are orphaned), the boosts' incentive contracts, and the
 * basis: the stored campaigns and allow lists the records were built from, for the writing
 * transaction to confirm (src/indexer/basis.ts).
 */

export interface BatchInput {
  coreLogs: RawLog[];
  /** Claimed and ToppedUp logs of any contract: those of the boosts' incentives are used. */
  incentiveLogs: RawLog[];
  /** Timestamp (seconds) of each block with logs. */
  timestamps: Map<bigint, number>;
  /** The block the view functions are read at (the confirmed head). */
  readAt: bigint;
  /** The range's first and last block: where allow-list edits are looked for. */
  from: bigint;
  to: bigint;
  /** How allow-list edits are found (INDEXER_ALLOW_LIST_EDITS). */
  allowListEdits: AllowListEditSource;
}

export interface Batch {
  records: UpsertRecord[];
  journal: JournalEntry[];
  incentives: IncentiveRow[];
  /** What the records' off-chain fields were copied from (or that there was nothing to copy). */
  basis: Basis;
  claims: number;
  campaigns: number;
  /** What was not written, by kind: components of unknown types, claims of what was not indexed. */
  skipped: SkippedCounts;
  /** The blocks with an allow-list edit, with the hash each was read at (null: not said). */
  editBlocks: Map<bigint, Hex | null>;
}

/** The BoostCore logs of a range, by what they ask for. */
interface CoreEvents {
  created: { boostId: string; blockNumber: bigint; txHash: Hex }[];
  createdIds: Set<string>;
  /** addIncentiveToBoost on a boost created before the range: rewritten with getBoost()'s incentives, by boost id. */
  extended: Set<string>;
  claims: ClaimEvent[];
}

const lower = (value: string) => value.toLowerCase();

export async function buildBatch(rpc: Rpc, database: DatabaseHandle, id: CoreId, input: BatchInput, logger: Logger): Promise<Batch> {
  const state = new BatchState(id, database, logger);
  const events = coreEvents(input.coreLogs);
  const changed = await changedBoosts(database, id, input.incentiveLogs, events);
  const stored = await storedCampaigns(database, id, [...events.createdIds, ...events.extended, ...changed.keys()]);
  const claimedIds = [...new Set(events.claims.map((event) => event.boostId))];
  const incentivesOf = new Map<string, KnownIncentive[]>(await knownIncentives(database, id, claimedIds.filter((boostId) => !events.createdIds.has(boostId))));

  await Promise.all(
    events.created.map(async ({ boostId, blockNumber, txHash }) => {
      const origin = { blockNumber, timestamp: input.timestamps.get(blockNumber)!, txHash };
      incentivesOf.set(boostId, await buildCampaign(state, rpc, input.readAt, boostId, origin, stored.get(boostId)));
    }),
  );
  await Promise.all(
    [...events.extended].map(async (boostId) => {
      const previous = stored.get(boostId);
      if (!previous) {
        state.skip('incentive', { boostId }, 'an incentive was added to a boost created before the start block; skipped');
        return;
      }
      const origin = { blockNumber: BigInt(previous.blockNumber), timestamp: previous.blockTimestamp, txHash: previous.txHash as Hex, creator: previous.creator };
      incentivesOf.set(boostId, await buildCampaign(state, rpc, input.readAt, boostId, origin, previous));
    }),
  );
  await Promise.all([...changed].map(([boostId, change]) => rereadIncentives(state, rpc, input.readAt, boostId, change, stored.get(boostId))));
  journalLaterLogs(state, new Map([...incentivesOf].filter(([boostId]) => events.createdIds.has(boostId) || events.extended.has(boostId))), input.incentiveLogs);

  const paramsOf = new Map<string, CampaignRecord>([...stored.entries(), ...state.campaigns.map((record) => [record.identifier, record] as const)]);
  // Read for their incentives' parameters (a raffle's strategy, an allow list to join): nothing of these
  // campaigns is written back, so they are not in the basis.
  const missingParams = claimedIds.filter((boostId) => !paramsOf.has(boostId) && incentivesOf.has(boostId));
  for (const [boostId, record] of await storedCampaigns(database, id, missingParams)) paramsOf.set(boostId, record);
  const changedIncentives = new Map<string, { boostId: string; position: number }>();
  for (const [boostId, { incentives }] of changed) for (const row of incentives) changedIncentives.set(row.address, { boostId, position: row.position! });
  const transactionIndexes = new Map(input.coreLogs.map((log) => [lower(log.transactionHash), Number(log.transactionIndex ?? 0)]));
  const context = { state, incentivesOf, paramsOf, changedIncentives, timestamps: input.timestamps, transactionIndexes };
  const claims = await buildClaims(context, events.claims, input.incentiveLogs);
  const editBlocks = await followListEdits(state, rpc, input.allowListEdits, input, allowListJoins(context, claims));

  const records: UpsertRecord[] = [...state.allowLists.values(), ...state.campaigns];
  records.push(...(await chainTokenRecords(rpc, database, id.chainId, state.builtCampaigns, input.readAt, logger)));
  for (const { record, blockNumber } of claims) {
    records.push(record);
    state.journalUndo(blockNumber, { kind: 'claim', deleted: true, chainId: id.chainId, txHash: record.txHash, logIndex: record.logIndex });
  }
  const { journal, incentiveRows, basis, skipped } = state;
  return { records, journal, incentives: incentiveRows, basis, claims: claims.length, campaigns: state.campaigns.length, skipped, editBlocks };
}

/**
 * A boost built in this range (created, or given an incentive) was read at readAt, after the logs its
 * incentives emitted in the range (a clawback, a top-up): it is journaled, as built, at the block of
 * the first of them too, so that a reorganisation that orphans that block and keeps the boost finds
 * the boost touched and reads its incentives again (src/indexer/rollback.ts).
 */
function journalLaterLogs(state: BatchState, built: ReadonlyMap<string, readonly KnownIncentive[]>, incentiveLogs: readonly RawLog[]): void {
  const boostOf = new Map<string, string>();
  for (const [boostId, list] of built) for (const incentive of list) if (incentive) boostOf.set(lower(incentive.address), boostId);
  const firstLog = new Map<string, bigint>();
  for (const log of incentiveLogs) {
    const boostId = boostOf.get(lower(log.address));
    if (boostId === undefined) continue;
    const blockNumber = BigInt(log.blockNumber);
    const seen = firstLog.get(boostId);
    if (seen === undefined || blockNumber < seen) firstLog.set(boostId, blockNumber);
  }
  const { chainId, core } = state.id;
  for (const [boostId, blockNumber] of firstLog) {
    const record = state.campaigns.find((campaign) => campaign.identifier === boostId);
    const key = JSON.stringify({ chainId, coreAddress: core, identifier: boostId });
    // At or before the block that built it, the journal undoes the whole write already.
    if (!record || state.journal.some((entry) => entry.kind === 'campaign' && entry.naturalKey === key && entry.blockNumber >= blockNumber)) continue;
    state.journalUndo(blockNumber, { kind: 'campaign', deleted: true, chainId, coreAddress: core, identifier: boostId }, record);
  }
}

function coreEvents(coreLogs: readonly RawLog[]): CoreEvents {
  const decoded = coreLogs.map((log) => ({ log, blockNumber: BigInt(log.blockNumber), logIndex: Number(log.logIndex), event: decodeCoreLog(log) }));
  const created = decoded
    .filter((entry) => entry.event.eventName === 'BoostCreated')
    .map((entry) => ({ boostId: (entry.event.args as { boostId: bigint }).boostId.toString(), blockNumber: entry.blockNumber, txHash: entry.log.transactionHash }));
  const createdIds = new Set(created.map((entry) => entry.boostId));
  const extended = new Set<string>();
  const claims: ClaimEvent[] = [];
  for (const { log, blockNumber, logIndex, event } of decoded) {
    if (event.eventName === 'IncentiveAdded') {
      const args = event.args as { boostId: bigint; isNewBoost: boolean };
      if (!args.isNewBoost && !createdIds.has(args.boostId.toString())) extended.add(args.boostId.toString());
    } else if (event.eventName === 'BoostClaimed') {
      const args = event.args;
      claims.push({ log, blockNumber, logIndex, boostId: args.boostId.toString(), incentiveId: Number(args.incentiveId), claimant: lower(args.claimant) });
    }
  }
  return { created, createdIds, extended, claims };
}

/**
 * Boosts created before this range whose incentives emitted a log that changes what they hold or
 * may pay: those incentives are read again (at readAt, as everything is); the rewrite is journaled
 * at the block of the first such log.
 */
async function changedBoosts(
  database: DatabaseHandle,
  id: CoreId,
  incentiveLogs: readonly RawLog[],
  events: CoreEvents,
): Promise<Map<string, { incentives: IncentiveRow[]; blockNumber: bigint }>> {
  const emitters = [...new Set(incentiveLogs.map((log) => lower(log.address)))];
  const changed = new Map<string, { incentives: IncentiveRow[]; blockNumber: bigint }>();
  for (const row of await incentivesAt(database, id, emitters)) {
    if (events.createdIds.has(row.boostId) || events.extended.has(row.boostId) || row.position === null) continue;
    const first = BigInt(incentiveLogs.find((log) => lower(log.address) === row.address)!.blockNumber);
    const entry = changed.get(row.boostId) ?? { incentives: [], blockNumber: first };
    entry.incentives.push(row);
    if (first < entry.blockNumber) entry.blockNumber = first;
    changed.set(row.boostId, entry);
  }
  return changed;
}

/**
 * A BoostCore log. BoostClaimed, by far the most frequent, is read from its topics directly (its
 * data, referrer and claim payload, is not needed): decodeEventLog costs tens of microseconds a log.
 */
function decodeCoreLog(log: RawLog) {
  if (log.topics[0] === TOPICS.BoostClaimed && log.topics.length === 4) {
    return {
      eventName: 'BoostClaimed' as const,
      args: { boostId: BigInt(log.topics[1]!), incentiveId: BigInt(log.topics[2]!), claimant: `0x${log.topics[3]!.slice(26)}` },
    };
  }
  return decodeEventLog({ abi: boostCoreEvents, data: log.data, topics: log.topics });
}
