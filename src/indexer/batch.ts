import type { Logger } from 'pino';
import { type Address, decodeEventLog, type Hex, zeroAddress } from 'viem';
import { boostCoreAbi, boostCoreEvents, incentiveClaimedEvent } from '../chain/abi.js';
import { readAction, readAllowList, readIncentive } from '../chain/components.js';
import { allowListMembers, decodeCreateBoostCalldata } from '../chain/create-boost-calldata.js';
import { TOPICS } from '../chain/logs.js';
import type { Rpc } from '../chain/rpc.js';
import type { DatabaseHandle } from '../db/client.js';
import type { AllowListRecord, CampaignRecord, ClaimRecord, DeletionRecord, UpsertRecord } from '../ingest/records.js';
import { type Basis, emptyBasis, remember } from './basis.js';
import {
  type CoreId,
  type IncentiveRow,
  hasClaimed,
  incentivesAt,
  type JournalEntry,
  type KnownIncentive,
  knownIncentives,
  storedAllowLists,
  storedCampaigns,
} from './store.js';
import { chainTokenRecords } from './tokens.js';

/**
 * One block range's logs turned into ingest records (docs/writing-data.md): a campaign from each
 * BoostCreated with getBoost() and its components' getters; a rewrite of the campaign for each
 * IncentiveAdded that adds to an existing boost, and for each incentive that emitted Claimed (a
 * claim, a clawback, a raffle draw) or ToppedUp, with that incentive's getters and balance read
 * again; a claim from each BoostClaimed with the amount of the incentive's Claimed log in the same
 * transaction. What the chain does not have (names, images, templates, channels...) is taken from
 * the stored campaign, never overwritten. Also returns the journal (what undoes these blocks' writes
 * if they are orphaned), the boosts' incentive contracts, and the basis: the stored campaigns and
 * allow lists the records were built from, for the writing transaction to confirm (src/indexer/basis.ts).
 */

export interface RawLog {
  address: Hex;
  topics: [Hex, ...Hex[]];
  data: Hex;
  blockHash: Hex;
  blockNumber: Hex;
  transactionHash: Hex;
  logIndex: Hex;
  blockTimestamp?: Hex;
}

export interface BatchInput {
  coreLogs: RawLog[];
  /** Claimed and ToppedUp logs of any contract: those of the boosts' incentives are used. */
  incentiveLogs: RawLog[];
  /** Timestamp (seconds) of each block with logs. */
  timestamps: Map<bigint, number>;
  /** The block the view functions are read at (the confirmed head). */
  readAt: bigint;
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
}

export type SkipKind = 'incentive' | 'action' | 'allowList' | 'claim';
export type SkippedCounts = Record<SkipKind, number>;
export const noneSkipped = (): SkippedCounts => ({ incentive: 0, action: 0, allowList: 0, claim: 0 });

const lower = (value: string) => value.toLowerCase();

export async function buildBatch(rpc: Rpc, database: DatabaseHandle, id: CoreId, input: BatchInput, logger: Logger): Promise<Batch> {
  const { chainId, core } = id;
  const publicId = (boostId: string) => `${chainId}:${core}:${boostId}`;
  const decoded = input.coreLogs.map((log) => ({
    log,
    blockNumber: BigInt(log.blockNumber),
    logIndex: Number(log.logIndex),
    event: decodeCoreLog(log),
  }));
  const created = decoded.filter((entry) => entry.event.eventName === 'BoostCreated');
  const createdIds = new Set(created.map((entry) => (entry.event.args as { boostId: bigint }).boostId.toString()));
  // addIncentiveToBoost: the boost is rewritten with getBoost()'s incentives.
  const extended = new Map<string, bigint>();
  for (const entry of decoded) {
    if (entry.event.eventName !== 'IncentiveAdded') continue;
    const args = entry.event.args as { boostId: bigint; isNewBoost: boolean };
    const boostId = args.boostId.toString();
    if (!args.isNewBoost && !createdIds.has(boostId)) extended.set(boostId, entry.blockNumber);
  }
  const claimEvents = decoded.filter((entry) => entry.event.eventName === 'BoostClaimed');
  const claimedIds = [...new Set(claimEvents.map((entry) => (entry.event.args as { boostId: bigint }).boostId.toString()))];
  // Boosts created before this range whose incentives emitted a log that changes what they hold or
  // may pay: those incentives are read again (at readAt, as everything is); the rewrite is journaled
  // at the block of the first such log.
  const emitters = [...new Set(input.incentiveLogs.map((log) => lower(log.address)))];
  const changed = new Map<string, { incentives: IncentiveRow[]; blockNumber: bigint }>();
  for (const row of await incentivesAt(database, id, emitters)) {
    if (createdIds.has(row.boostId) || extended.has(row.boostId) || row.position === null) continue;
    const first = BigInt(input.incentiveLogs.find((log) => lower(log.address) === row.address)!.blockNumber);
    const entry = changed.get(row.boostId) ?? { incentives: [], blockNumber: first };
    entry.incentives.push(row);
    if (first < entry.blockNumber) entry.blockNumber = first;
    changed.set(row.boostId, entry);
  }

  const stored = await storedCampaigns(database, id, [...createdIds, ...extended.keys(), ...changed.keys()]);
  const known = await knownIncentives(database, id, claimedIds.filter((boostId) => !createdIds.has(boostId)));

  const records: UpsertRecord[] = [];
  const journal: JournalEntry[] = [];
  const incentiveRows: IncentiveRow[] = [];
  const skipped = noneSkipped();
  const allowListRecords = new Map<string, AllowListRecord>();
  const campaignRecords: CampaignRecord[] = [];
  const basis = emptyBasis();
  const storedAllowList = async (contractAddress: string) => {
    const existing = (await storedAllowLists(database, chainId, [contractAddress])).get(contractAddress);
    remember(basis.allowLists, contractAddress, existing);
    return existing;
  };

  const buildCampaign = async (boostId: string, origin: { blockNumber: bigint; timestamp: number; txHash: Hex; creator?: string }) => {
    const boost = await rpc.withRetries(`getBoost ${boostId}`, () =>
      rpc.client.readContract({ address: core as Address, abi: boostCoreAbi, functionName: 'getBoost', args: [BigInt(boostId)], blockNumber: input.readAt }),
    );
    const transaction = await rpc.withRetries(`eth_getTransactionByHash ${origin.txHash}`, () => rpc.client.getTransaction({ hash: origin.txHash }));
    const payload = decodeCreateBoostCalldata(transaction.input);
    const [incentives, action, allowList] = await Promise.all([
      Promise.all(boost.incentives.map((address) => readIncentive(rpc, address, input.readAt, origin.blockNumber))),
      readAction(rpc, boost.action, input.readAt),
      boost.allowList === zeroAddress ? null : readAllowList(rpc, boost.allowList, input.readAt),
    ]);
    const previous = stored.get(boostId);
    remember(basis.campaigns, boostId, previous);
    const positions: (number | null)[] = [];
    const incentiveRecords: CampaignRecord['incentives'] = [];
    incentives.forEach((incentive, index) => {
      const address = lower(boost.incentives[index]!);
      if (!incentive.known) {
        skipped.incentive++;
        logger.warn({ chainId, core, boostId, incentiveId: index, address, interfaceId: incentive.interfaceId }, 'skipping an incentive of unknown type');
        positions.push(null);
        return;
      }
      const position = incentiveRecords.length;
      positions.push(position);
      // A field the chain does not have (rebatePercentage) stays as the operator wrote it.
      const kept = previous?.incentives[position]?.type === incentive.type ? previous.incentives[position].params : {};
      incentiveRecords.push({
        type: incentive.type as CampaignRecord['incentives'][number]['type'],
        params: { ...kept, ...incentive.params },
        ...(incentive.balance === null ? {} : { balance: incentive.balance }),
      });
    });
    positions.forEach((position, incentiveId) =>
      incentiveRows.push({ boostId, incentiveId, address: lower(boost.incentives[incentiveId]!), position, blockNumber: origin.blockNumber }),
    );
    if (!action.known) {
      skipped.action++;
      logger.warn({ chainId, core, boostId, address: boost.action, interfaceId: action.interfaceId }, 'skipping an action of unknown type');
    }

    let allowListRef: CampaignRecord['allowList'] = null;
    if (allowList && !allowList.known) {
      skipped.allowList++;
      logger.warn({ chainId, core, boostId, address: boost.allowList, interfaceId: allowList.interfaceId }, 'skipping an allow list of unknown type');
    } else if (allowList) {
      const contractAddress = lower(boost.allowList);
      // BoostCore clones a base (isBase) and initialises the clone with the Target's parameters: those
      // are the members. A list used as it is (not isBase) ignores them; its members stay as stored.
      const members = payload?.allowList.isBase ? allowListMembers(payload.allowList.parameters) : null;
      const existing = allowListRecords.get(contractAddress) ?? (await storedAllowList(contractAddress));
      if (allowList.type === 'OffchainAccessList' && !existing?.accessListId) {
        skipped.allowList++;
        logger.warn({ chainId, core, boostId, address: contractAddress }, 'an OffchainAccessList needs its access list from an import; the campaign is written without its allow list');
      } else {
        const record: AllowListRecord = {
          kind: 'allowList',
          chainId,
          contractAddress,
          owner: allowList.owner,
          type: allowList.type,
          accessListId: allowList.type === 'OffchainAccessList' ? (existing?.accessListId ?? null) : null,
          addresses: members ?? existing?.addresses ?? [],
        };
        allowListRecords.set(contractAddress, record);
        journalUndo(origin.blockNumber, { kind: 'allowList', deleted: true, chainId, contractAddress }, existing);
        allowListRef = { chainId, contractAddress };
      }
    }
    const steps = action.known
      ? action.steps.map((step, index) => {
          const before = previous?.steps?.[index];
          return before && before.signature === step.signature ? { ...step, signatureName: before.signatureName } : step;
        })
      : [];
    const claimant = action.known
      ? {
          ...action.claimant,
          signatureName: previous?.actionClaimant?.signature === action.claimant.signature ? previous.actionClaimant.signatureName : '',
        }
      : null;
    const record: CampaignRecord = {
      // What only an import gives stays as it was.
      ...(previous ?? {}),
      kind: 'campaign',
      chainId,
      coreAddress: core,
      identifier: boostId,
      campaignIndex: boostId,
      owner: lower(boost.owner),
      creator: origin.creator ?? lower(transaction.from),
      budget: lower(boost.budget),
      validator: lower(boost.validator),
      action: lower(boost.action),
      protocolFee: boost.protocolFee.toString(),
      maxParticipants: boost.maxParticipants.toString(),
      blockTimestamp: origin.timestamp,
      blockNumber: Number(origin.blockNumber),
      txHash: lower(origin.txHash),
      allowList: allowListRef,
      actionClaimant: claimant,
      incentives: incentiveRecords,
      steps,
    };
    campaignRecords.push(record);
    journalUndo(origin.blockNumber, { kind: 'campaign', deleted: true, chainId, coreAddress: core, identifier: boostId }, previous);
    return positions.map((position, incentiveId) => ({ address: lower(boost.incentives[incentiveId]!), position }));
  };

  /** What undoes a write of `blockNumber`: deleting what it created, or writing back what was there. */
  function journalUndo(blockNumber: bigint, deletion: DeletionRecord, previous?: UpsertRecord) {
    const { kind, deleted: _deleted, ...key } = deletion;
    journal.push({ blockNumber, kind, naturalKey: JSON.stringify(key), record: previous ?? deletion });
  }

  const incentivesOf = new Map<string, KnownIncentive[]>(known);
  await Promise.all(
    created.map(async (entry) => {
      const boostId = (entry.event.args as { boostId: bigint }).boostId.toString();
      const list = await buildCampaign(boostId, {
        blockNumber: entry.blockNumber,
        timestamp: input.timestamps.get(entry.blockNumber)!,
        txHash: entry.log.transactionHash,
      });
      incentivesOf.set(boostId, list);
    }),
  );
  await Promise.all(
    [...extended.keys()].map(async (boostId) => {
      const previous = stored.get(boostId);
      if (!previous) {
        skipped.incentive++;
        logger.warn({ chainId, core, boostId }, 'an incentive was added to a boost created before the start block; skipped');
        return;
      }
      const list = await buildCampaign(boostId, {
        blockNumber: BigInt(previous.blockNumber),
        timestamp: previous.blockTimestamp,
        txHash: previous.txHash as Hex,
        creator: previous.creator,
      });
      incentivesOf.set(boostId, list);
    }),
  );
  await Promise.all(
    [...changed].map(async ([boostId, { incentives: rows, blockNumber }]) => {
      const previous = stored.get(boostId);
      if (!previous) return;
      remember(basis.campaigns, boostId, previous);
      const incentives = [...previous.incentives];
      for (const row of rows) {
        const before = incentives[row.position!];
        if (!before) continue;
        const read = await readIncentive(rpc, row.address as Address, input.readAt, BigInt(previous.blockNumber));
        if (!read.known || read.type !== before.type) continue;
        const { balance: _balance, ...rest } = before;
        incentives[row.position!] = { ...rest, params: { ...before.params, ...read.params }, ...(read.balance === null ? {} : { balance: read.balance }) };
      }
      campaignRecords.push({ ...previous, incentives });
      journalUndo(blockNumber, { kind: 'campaign', deleted: true, chainId, coreAddress: core, identifier: boostId }, previous);
    }),
  );
  // Claimed logs by transaction, incentive and recipient, in log order; each pays one BoostClaimed after it.
  const claimedBy = new Map<string, PaidLog[]>();
  for (const log of input.incentiveLogs) {
    const claimed = decodeClaimed(log);
    if (!claimed) continue;
    const key = `${log.transactionHash}:${lower(log.address)}:${claimed.recipient}`;
    const list = claimedBy.get(key) ?? [];
    list.push({ ...claimed, log, logIndex: Number(log.logIndex), used: false });
    claimedBy.set(key, list);
  }

  const claims: { record: ClaimRecord; blockNumber: bigint }[] = [];
  const paramsOf = new Map<string, CampaignRecord>([...stored.entries(), ...campaignRecords.map((record) => [record.identifier, record] as const)]);
  // Read for their incentives' parameters (a raffle's strategy, an allow list to join): nothing of these
  // campaigns is written back, so they are not in the basis.
  const missingParams = claimedIds.filter((boostId) => !paramsOf.has(boostId) && incentivesOf.has(boostId));
  for (const [boostId, record] of await storedCampaigns(database, id, missingParams)) paramsOf.set(boostId, record);
  for (const entry of claimEvents) {
    const args = entry.event.args as { boostId: bigint; incentiveId: bigint; claimant: string };
    const boostId = args.boostId.toString();
    const incentiveId = Number(args.incentiveId);
    const incentive = incentivesOf.get(boostId)?.[incentiveId];
    const campaign = paramsOf.get(boostId);
    if (!incentive || incentive.position === null || !campaign) {
      skipped.claim++;
      logger.warn({ chainId, core, boostId, incentiveId, txHash: entry.log.transactionHash }, 'skipping a claim of a boost or incentive not indexed');
      continue;
    }
    const claimant = lower(args.claimant);
    const paid = (claimedBy.get(`${entry.log.transactionHash}:${incentive.address}:${claimant}`) ?? [])
      .filter((claimed) => !claimed.used && claimed.logIndex < entry.logIndex)
      .at(-1);
    if (paid) paid.used = true;
    // Without usdValue and ethValueWei: ingest values the claim from the prices at its time (claim_value()).
    claims.push({
      blockNumber: entry.blockNumber,
      record: {
        kind: 'claim',
        chainId,
        txHash: lower(entry.log.transactionHash),
        logIndex: entry.logIndex,
        campaign: publicId(boostId),
        incentivePosition: incentive.position,
        claimant,
        // An AllowListIncentive pays nothing and emits no Claimed.
        amount: (paid?.amount ?? 0n).toString(),
        claimedAt: new Date(input.timestamps.get(entry.blockNumber)! * 1000).toISOString(),
      },
    });
  }
  claims.push(...(await rafflePayouts()));
  await joinAllowLists();
  records.push(...allowListRecords.values(), ...campaignRecords);
  records.push(...(await chainTokenRecords(rpc, database, chainId, campaignRecords, input.readAt, logger)));
  for (const { record, blockNumber } of claims) {
    records.push(record);
    journalUndo(blockNumber, { kind: 'claim', deleted: true, chainId, txHash: record.txHash, logIndex: record.logIndex });
  }
  return { records, journal, incentives: incentiveRows, basis, claims: claims.length, campaigns: campaignRecords.length, skipped };

  /**
   * A RAFFLE's draw pays its winner with a Claimed that no BoostClaimed goes with: a claim of the
   * winner, at the draw's transaction and log. A clawback's Claimed has no BoostClaimed either, but
   * a RAFFLE can only be clawed back before its first entry: a recipient who entered is a winner.
   */
  async function rafflePayouts(): Promise<typeof claims> {
    const incentiveAt = new Map<string, { boostId: string; position: number }>();
    for (const [boostId, list] of incentivesOf) {
      for (const incentive of list) if (incentive && incentive.position !== null) incentiveAt.set(incentive.address, { boostId, position: incentive.position });
    }
    for (const [boostId, { incentives }] of changed) for (const row of incentives) incentiveAt.set(row.address, { boostId, position: row.position! });
    const payouts: typeof claims = [];
    for (const paid of [...claimedBy.values()].flat()) {
      const at = paid.used ? undefined : incentiveAt.get(lower(paid.log.address));
      const incentive = at && paramsOf.get(at.boostId)?.incentives[at.position];
      if (!at || incentive?.type !== 'ERC20Incentive' || (incentive.params as Record<string, unknown>).strategy !== 1) continue;
      const campaign = publicId(at.boostId);
      const entered =
        claims.some(({ record }) => record.campaign === campaign && record.incentivePosition === at.position && record.claimant === paid.recipient) ||
        (await hasClaimed(database, campaign, at.position, paid.recipient));
      if (!entered) continue;
      const blockNumber = BigInt(paid.log.blockNumber);
      payouts.push({
        blockNumber,
        record: {
          kind: 'claim',
          chainId,
          txHash: lower(paid.log.transactionHash),
          logIndex: paid.logIndex,
          campaign,
          incentivePosition: at.position,
          claimant: paid.recipient,
          amount: paid.amount.toString(),
          claimedAt: new Date(input.timestamps.get(blockNumber)! * 1000).toISOString(),
        },
      });
    }
    return payouts;
  }

  /**
   * An AllowListIncentive's claim adds its claimant to the incentive's allow list (setAllowed): a
   * stored list gains the member. A list no campaign uses is not stored, and nothing shows it.
   */
  async function joinAllowLists(): Promise<void> {
    const joined = new Map<string, { claimants: Set<string>; blockNumber: bigint }>();
    for (const { record, blockNumber } of claims) {
      const boostId = record.campaign.split(':')[2]!;
      const incentive = paramsOf.get(boostId)?.incentives[record.incentivePosition];
      const list = (incentive?.params as Record<string, unknown> | undefined)?.allowListAddress;
      if (incentive?.type !== 'AllowListIncentive' || typeof list !== 'string') continue;
      const entry = joined.get(lower(list)) ?? { claimants: new Set<string>(), blockNumber };
      entry.claimants.add(record.claimant);
      joined.set(lower(list), entry);
    }
    for (const [contractAddress, { claimants, blockNumber }] of joined) {
      const existing = allowListRecords.get(contractAddress) ?? (await storedAllowList(contractAddress));
      if (existing?.type !== 'SimpleAllowList') continue;
      const members = existing.addresses ?? [];
      const addresses = [...new Set([...members, ...claimants])].sort();
      if (addresses.length === members.length) continue;
      allowListRecords.set(contractAddress, { ...existing, addresses });
      journalUndo(blockNumber, { kind: 'allowList', deleted: true, chainId, contractAddress }, existing);
    }
  }
}

interface PaidLog {
  recipient: string;
  amount: bigint;
  log: RawLog;
  logIndex: number;
  used: boolean;
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
