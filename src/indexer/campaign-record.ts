import { type Address, type Hex, zeroAddress } from 'viem';
import { boostCoreAbi } from '../chain/abi.js';
import { type ActionRead, type AllowListRead, type IncentiveRead, readAction, readAllowList, readIncentive } from '../chain/components.js';
import { allowListMembers, type CreateBoostPayload, decodeCreateBoostCalldata } from '../chain/create-boost-calldata.js';
import type { Rpc } from '../chain/rpc.js';
import type { AllowListRecord, CampaignRecord } from '../ingest/records.js';
import { remember } from './basis.js';
import type { BatchState } from './batch-state.js';
import type { IncentiveRow, KnownIncentive } from './store.js';

/**
 * A campaign record from the chain: getBoost() and its components' getters at the batch's block,
 * the creating transaction's calldata for an allow list's members. What the chain does not have
 * (names, images, templates, channels, a kept incentive param, a step's signature name) is taken
 * from the stored campaign, never overwritten.
 */

/** Where a boost was created: its block, time and transaction (and creator, when already known). */
export interface CampaignOrigin {
  blockNumber: bigint;
  timestamp: number;
  txHash: Hex;
  creator?: string;
}

const lower = (value: string) => value.toLowerCase();

/** Builds the record into `state` (with its journal entry and incentive contracts); returns the boost's incentives by id. */
export async function buildCampaign(
  state: BatchState,
  rpc: Rpc,
  readAt: bigint,
  boostId: string,
  origin: CampaignOrigin,
  previous: CampaignRecord | undefined,
): Promise<KnownIncentive[]> {
  const { chainId, core } = state.id;
  const boost = await rpc.withRetries(`getBoost ${boostId}`, () =>
    rpc.client.readContract({ address: core as Address, abi: boostCoreAbi, functionName: 'getBoost', args: [BigInt(boostId)], blockNumber: readAt }),
  );
  const transaction = await rpc.withRetries(`eth_getTransactionByHash ${origin.txHash}`, () => rpc.client.getTransaction({ hash: origin.txHash }));
  const [incentives, action, allowList] = await Promise.all([
    Promise.all(boost.incentives.map((address) => readIncentive(rpc, address, readAt, origin.blockNumber))),
    readAction(rpc, boost.action, readAt),
    boost.allowList === zeroAddress ? null : readAllowList(rpc, boost.allowList, readAt),
  ]);
  remember(state.basis.campaigns, boostId, previous);
  const addresses = boost.incentives.map(lower);
  const { records, positions } = incentiveRecords(state, boostId, addresses, incentives, previous);
  positions.forEach((position, incentiveId) =>
    state.incentiveRows.push({ boostId, incentiveId, address: addresses[incentiveId]!, position, blockNumber: origin.blockNumber }),
  );
  if (!action.known) {
    state.skip('action', { boostId, address: boost.action, interfaceId: action.interfaceId }, 'skipping an action of unknown type');
  }
  const payload = decodeCreateBoostCalldata(transaction.input);
  const allowListRef = allowList && (await allowListOf(state, boostId, lower(boost.allowList), allowList, payload, origin.blockNumber));
  const fromAction = actionFields(action, previous);
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
    allowList: allowListRef ?? null,
    actionClaimant: fromAction.actionClaimant,
    incentives: records,
    steps: fromAction.steps,
  };
  state.campaigns.push(record);
  state.builtCampaigns.push(record);
  state.journalUndo(origin.blockNumber, { kind: 'campaign', deleted: true, chainId, coreAddress: core, identifier: boostId }, previous);
  return positions.map((position, incentiveId) => ({ address: addresses[incentiveId]!, position }));
}

/** The incentives of known types as records, and each incentive id's position among them (null: skipped). */
function incentiveRecords(
  state: BatchState,
  boostId: string,
  addresses: string[],
  incentives: IncentiveRead[],
  previous: CampaignRecord | undefined,
): { records: CampaignRecord['incentives']; positions: (number | null)[] } {
  const positions: (number | null)[] = [];
  const records: CampaignRecord['incentives'] = [];
  incentives.forEach((incentive, index) => {
    if (!incentive.known) {
      const fields = { boostId, incentiveId: index, address: addresses[index], interfaceId: incentive.interfaceId };
      state.skip('incentive', fields, 'skipping an incentive of unknown type');
      positions.push(null);
      return;
    }
    const position = records.length;
    positions.push(position);
    // A field the chain does not have (rebatePercentage) stays as the operator wrote it.
    const kept = previous?.incentives[position]?.type === incentive.type ? previous.incentives[position].params : {};
    records.push({
      type: incentive.type as CampaignRecord['incentives'][number]['type'],
      params: { ...kept, ...incentive.params },
      ...(incentive.balance === null ? {} : { balance: incentive.balance }),
    });
  });
  return { records, positions };
}

/** The campaign's allow list, written into `state` with its members; null when it cannot be written. */
async function allowListOf(
  state: BatchState,
  boostId: string,
  contractAddress: string,
  allowList: AllowListRead,
  payload: CreateBoostPayload | null,
  blockNumber: bigint,
): Promise<CampaignRecord['allowList']> {
  const { chainId } = state.id;
  if (!allowList.known) {
    state.skip('allowList', { boostId, address: contractAddress, interfaceId: allowList.interfaceId }, 'skipping an allow list of unknown type');
    return null;
  }
  // BoostCore clones a base (isBase) and initialises the clone with the Target's parameters: those
  // are the members. A list used as it is (not isBase) ignores them; its members stay as stored.
  const members = payload?.allowList.isBase ? allowListMembers(payload.allowList.parameters) : null;
  const existing = await state.allowList(contractAddress);
  if (allowList.type === 'OffchainAccessList' && !existing?.accessListId) {
    state.skip(
      'allowList',
      { boostId, address: contractAddress },
      'an OffchainAccessList needs its access list from an import; the campaign is written without its allow list',
    );
    return null;
  }
  // The range's campaigns are built at once: a list used as it is keeps the members another campaign
  // of the range wrote (a clone's) whichever of the two is built first.
  const current = state.allowLists.get(contractAddress) ?? existing;
  const record: AllowListRecord = {
    kind: 'allowList',
    chainId,
    contractAddress,
    owner: allowList.owner,
    type: allowList.type,
    accessListId: allowList.type === 'OffchainAccessList' ? (existing?.accessListId ?? null) : null,
    addresses: members ?? current?.addresses ?? [],
  };
  state.allowLists.set(contractAddress, record);
  state.journalUndo(blockNumber, { kind: 'allowList', deleted: true, chainId, contractAddress }, existing);
  return { chainId, contractAddress };
}

/** The action's steps and claimant, keeping the signature names an import gave. */
function actionFields(action: ActionRead, previous: CampaignRecord | undefined): Pick<CampaignRecord, 'steps' | 'actionClaimant'> {
  if (!action.known) return { steps: [], actionClaimant: null };
  const steps = action.steps.map((step, index) => {
    const before = previous?.steps?.[index];
    return before && before.signature === step.signature ? { ...step, signatureName: before.signatureName } : step;
  });
  const signatureName = previous?.actionClaimant?.signature === action.claimant.signature ? previous.actionClaimant.signatureName : '';
  return { steps, actionClaimant: { ...action.claimant, signatureName } };
}

/**
 * A boost created before the range whose incentives emitted a log in it (a claim, a clawback, a raffle
 * draw, a top-up): the stored campaign, with those incentives read again; journaled at the block of
 * the first such log.
 */
export async function rereadIncentives(
  state: BatchState,
  rpc: Rpc,
  readAt: bigint,
  boostId: string,
  change: { incentives: IncentiveRow[]; blockNumber: bigint },
  previous: CampaignRecord | undefined,
): Promise<void> {
  if (!previous) return;
  remember(state.basis.campaigns, boostId, previous);
  state.campaigns.push(await withIncentivesRead(rpc, readAt, previous, change.incentives));
  const { chainId, core } = state.id;
  state.journalUndo(change.blockNumber, { kind: 'campaign', deleted: true, chainId, coreAddress: core, identifier: boostId }, previous);
}

/**
 * The campaign with the chain's values (getters and balance, at readAt) of its incentives at these
 * contracts, and everything else as it was.
 */
export async function withIncentivesRead(
  rpc: Rpc,
  readAt: bigint,
  previous: CampaignRecord,
  contracts: readonly Pick<KnownIncentive, 'address' | 'position'>[],
): Promise<CampaignRecord> {
  const incentives = [...previous.incentives];
  for (const row of contracts) {
    const before = row.position === null ? undefined : incentives[row.position];
    if (!before) continue;
    const read = await readIncentive(rpc, row.address as Address, readAt, BigInt(previous.blockNumber));
    if (!read.known || read.type !== before.type) continue;
    const { balance: _balance, ...rest } = before;
    incentives[row.position!] = { ...rest, params: { ...before.params, ...read.params }, ...(read.balance === null ? {} : { balance: read.balance }) };
  }
  return { ...previous, incentives };
}
