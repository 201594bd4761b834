import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Database } from '../../src/db/client.js';
import {
  accessListMembers,
  accessLists,
  actionSteps,
  actionTemplates,
  allowListAddresses,
  allowLists,
  budgetAccountMembers,
  budgetAccounts,
  campaigns,
  claims,
  contracts,
  incentives,
  projects,
  tokens,
  users,
} from '../../src/db/schema.js';
import { createApiTokensRepository } from '../../src/repositories/api-tokens.repository.js';

/**
 * Small factories for purpose-built test data: each inserts one row with sensible defaults and
 * returns what a test needs to refer to it. Numbers make addresses readable in failures.
 */

let sequence = 0;
const next = () => ++sequence;

/** `address(7)` is `0x0000...0007`: readable, valid and lowercase. */
export const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
export const ZERO_ADDRESS = address(0);

export const randomAddress = () => `0x${randomBytes(20).toString('hex')}`;

const hex = (n: number, bytes: number) => `0x${n.toString(16).padStart(bytes * 2, '0')}`;

export async function insertToken(db: Database, values: Partial<typeof tokens.$inferInsert> = {}) {
  const n = next();
  const row = {
    chainId: 8453,
    address: address(0x70000 + n),
    id: `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`,
    name: `Token ${n}`,
    symbol: `TK${n}`,
    decimals: 18,
    imageUri: `https://assets.example.com/tokens/${n}.png`,
    isWhitelisted: true,
    priceUsd: '1',
    ...values,
  };
  await db.insert(tokens).values(row);
  return row;
}

export async function insertUser(db: Database, values: Partial<typeof users.$inferInsert> = {}) {
  const [row] = await db
    .insert(users)
    .values({ address: address(0x10000 + next()), score: 0, ...values })
    .returning();
  return row!;
}

export async function insertActionTemplate(db: Database, values: Partial<typeof actionTemplates.$inferInsert> = {}) {
  const n = next();
  const [project] = await db
    .insert(projects)
    .values({
      id: `00000000-0000-4000-9000-${n.toString(16).padStart(12, '0')}`,
      name: `Project ${n}`,
      imageUri: `https://assets.example.com/projects/${n}.png`,
      url: `https://project-${n}.example.org`,
      verificationLevel: 'verified',
    })
    .returning();
  const [template] = await db
    .insert(actionTemplates)
    .values({
      id: `00000000-0000-4000-a000-${n.toString(16).padStart(12, '0')}`,
      projectId: project!.id,
      actionType: 'mint',
      description: `Mint on project ${n}`,
      category: 'nft',
      title: `Mint ${n}`,
      campaignConfig: minimalCampaignConfig(8453, address(0x30000 + n)),
      nameConfig: { template: 'Mint {{index}}', campaignNameGenerator: 'mint-v1', abiFilters: [] },
      ...values,
    })
    .returning();
  return { template: template!, project: project! };
}

/** The required members of a template's campaign configuration, and nothing else. */
export function minimalCampaignConfig(chainId: number, contract: string): Record<string, unknown> {
  const ref = {
    ID: `eth:${chainId}:${contract}`,
    contract_name: 'Minter',
    address: contract,
    deployment_information: { address: contract, network_id: String(chainId) },
  };
  return {
    selectedContract: ref,
    selectedSignature: 'mint(address,uint256)',
    parameterFilters: [],
    logFilters: [],
    claimantContract: ref,
    claimantSignature: 'mint(address,uint256)',
    claimantParameterMapping: 'arg0:0',
    reward: { budget: '100', amount: '1', rebatePercentage: 0 },
  };
}

/** A budget account with its owner as administrator, and optionally more members. */
export async function insertBudgetAccount(
  db: Database,
  values: Partial<typeof budgetAccounts.$inferInsert> = {},
  members: Omit<typeof budgetAccountMembers.$inferInsert, 'chainId' | 'accountAddress'>[] = [],
) {
  const n = next();
  const row = {
    chainId: 8453,
    address: address(0xba000 + n),
    registryType: 'BUDGET',
    baseImplementation: address(0xba5e),
    deployedInstance: address(0xba000 + n),
    txHash: hex(n, 32),
    blockTimestamp: 1_760_000_000 + n,
    blockNumber: 30_000_000 + n,
    name: `budget-${n}`,
    owner: address(0xa0000 + n),
    ...values,
  };
  await db.insert(budgetAccounts).values(row);
  const allMembers = [{ memberAddress: row.owner, roles: [1, 2] }, ...members];
  await db.insert(budgetAccountMembers).values(allMembers.map((member) => ({ ...member, chainId: row.chainId, accountAddress: row.address })));
  return row;
}

export async function insertContract(db: Database, values: Partial<typeof contracts.$inferInsert> = {}) {
  const row = { chainId: 8453, address: address(0x30000 + next()), name: 'Named contract', ...values };
  await db.insert(contracts).values(row);
  return row;
}

export interface IncentiveInput {
  type: (typeof incentives.$inferInsert)['type'];
  params: Record<string, unknown>;
}

export type StepInput = Partial<Omit<typeof actionSteps.$inferInsert, 'campaignKey' | 'position'>>;

export interface AllowListInput {
  type: 'SimpleAllowList' | 'SimpleDenyList' | 'OpenAllowList' | 'OffchainAccessList';
  addresses?: string[];
  accessListId?: string;
  owner?: string;
}

export type CampaignInput = Partial<typeof campaigns.$inferInsert> & {
  incentives?: IncentiveInput[];
  steps?: StepInput[];
  allowList?: AllowListInput;
};

/** An ERC20Incentive paying `reward` per claim, `limit` times. */
export const erc20Incentive = (asset: string, reward = '1000000', limit = '100'): IncentiveInput => ({
  type: 'ERC20Incentive',
  params: { asset, strategy: 0, reward, limit },
});

/**
 * A campaign with its incentives (default: one ERC20Incentive of an unknown token, so pass a
 * whitelisted asset when the default `tokenWhitelist=true` matters), action steps (default: one)
 * and optional allow list. Returns its key and public ID.
 */
export async function insertCampaign(db: Database, input: CampaignInput = {}) {
  const n = next();
  const { incentives: incentiveInputs, steps: stepInputs, allowList, ...values } = input;
  const chainId = values.chainId ?? 8453;
  let allowListId: number | null = null;
  if (allowList) {
    const [list] = await db
      .insert(allowLists)
      .values({
        chainId,
        contractAddress: address(0x40000 + n),
        owner: allowList.owner ?? address(0x50000 + n),
        type: allowList.type,
        accessListId: allowList.accessListId ?? null,
      })
      .returning({ id: allowLists.id });
    allowListId = list!.id;
    if (allowList.addresses?.length) {
      await db.insert(allowListAddresses).values(allowList.addresses.map((member) => ({ allowListId: list!.id, address: member })));
    }
  }

  const [campaign] = await db
    .insert(campaigns)
    .values({
      chainId,
      coreAddress: address(0xc0000),
      identifier: String(1000 + n),
      campaignIndex: String(n),
      owner: address(0xa0000 + n),
      creator: address(0xa0000 + n),
      budget: address(0xb0000 + n),
      validator: address(0xd0000),
      action: address(0xe0000 + n),
      protocolFee: '0',
      maxParticipants: '1000',
      blockTimestamp: 1_700_000_000 + n,
      blockNumber: 1_000_000 + n,
      txHash: hex(n, 32),
      allowListId,
      ...values,
    })
    .returning({ key: campaigns.key, publicId: campaigns.publicId });

  const incentiveRows = (incentiveInputs ?? [erc20Incentive(address(0x7f000 + n))]).map((incentive, position) => ({
    campaignKey: campaign!.key,
    position,
    ...incentive,
  }));
  if (incentiveRows.length > 0) await db.insert(incentives).values(incentiveRows);

  const stepRows = (stepInputs ?? [{}]).map((step, position) => ({
    campaignKey: campaign!.key,
    position,
    chainId,
    targetContract: address(0x60000 + n),
    signature: '0xa9059cbb',
    signatureName: 'transfer(address,uint256)',
    signatureType: 'function',
    actionType: 0,
    parameters: { filterType: 0, fieldType: 0, fieldIndex: 0, filterData: '0x' },
    ...step,
  }));
  if (stepRows.length > 0) await db.insert(actionSteps).values(stepRows);

  return campaign!;
}

export type ClaimInput = Partial<typeof claims.$inferInsert> & { campaignKey: number };

/** A claim of the campaign `campaignKey`, on its chain unless `chainId` says otherwise. */
export async function insertClaim(db: Database, input: ClaimInput) {
  const n = next();
  const [row] = await db
    .insert(claims)
    .values({
      chainId: sql<number>`(SELECT chain_id FROM campaigns WHERE key = ${input.campaignKey})`,
      logIndex: n,
      incentivePosition: 0,
      claimant: address(0x20000 + n),
      amount: '1000000',
      usdValue: '1',
      ethValueWei: '300000000000000',
      txHash: hex(n, 32),
      claimedAt: new Date(),
      ...input,
    })
    .returning();
  return row!;
}

/** Issues a bearer token through the repository, as the token command does; returns the clear token. */
export async function insertApiToken(db: Database, userId: string, label: string | null = null) {
  return createApiTokensRepository(db).createToken(userId, label);
}

export async function insertAccessList(
  db: Database,
  overrides: Partial<typeof accessLists.$inferInsert> & Pick<typeof accessLists.$inferInsert, 'ownerUserId'>,
) {
  const [row] = await db
    .insert(accessLists)
    .values({ name: 'Access list', icon: 'https://assets.example.com/icons/star.svg', ...overrides })
    .returning();
  return row!;
}

/** Adds `count` random member addresses to an access list, or the given addresses. */
export async function insertAccessListMembers(db: Database, accessListId: string, members: number | string[]) {
  const addresses = typeof members === 'number' ? Array.from({ length: members }, randomAddress) : members;
  if (addresses.length === 0) return;
  await db.insert(accessListMembers).values(addresses.map((member) => ({ accessListId, address: member })));
}
