import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  customType,
  foreignKey,
  index,
  integer,
  jsonb,
  numeric,
  pgSequence,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  unique,
  uuid,
} from 'drizzle-orm/pg-core';

/**
 * The storage contract. drizzle-kit reads this file to generate `migrations/`.
 *
 * Conventions:
 * - Addresses are stored lowercase (CHECK constraints enforce it), so equality is case-insensitive for free.
 * - uint256 values are `numeric(78,0)` and travel as strings; they never pass through a JS number.
 * - Campaigns have an integer `key` for joins; the public ID `<chain_id>:<core_address>:<identifier>`
 *   is a generated column, so the three parts are the only source of it.
 * - Claim totals on incentives, the derived campaign flags and the campaign documents are maintained
 *   by the SQL functions and triggers in `src/db/sql/` (one file each), so every writer keeps them exact.
 */

/** uint256 on chain: 78 decimal digits. */
const uint256 = (name: string) => numeric(name, { precision: 78, scale: 0 });
/** A USD amount with sub-cent precision; sums are exact, rounding happens only on output. */
const usd = (name: string) => numeric(name, { precision: 38, scale: 6 });
const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
/** Binary ("C") collation: the same ordering on every server, and index-friendly for the tie-break. */
const textC = customType<{ data: string }>({ dataType: () => 'text COLLATE "C"' });

/**
 * `^0x[0-9a-f]{40}$`, written as a length test and an unbounded class: PostgreSQL evaluates a
 * counted repetition several times slower, and a bulk load checks millions of addresses.
 */
const addressCheck = (column: string) => `length(${column}) = 42 AND ${column} ~ '^0x[0-9a-f]*$'`;
const isAddress = (column: string) => sql.raw(addressCheck(column));
const isAddressOrNull = (column: string) => sql.raw(`${column} IS NULL OR (${addressCheck(column)})`);

export const ALLOW_LIST_TYPES = ['SimpleAllowList', 'SimpleDenyList', 'OpenAllowList', 'OffchainAccessList'] as const;
export const INCENTIVE_TYPES = [
  'AllowListIncentive',
  'CGDAIncentive',
  'ERC20Incentive',
  'PointsIncentive',
  'ERC20VariableIncentive',
  'ERC20VariableCriteriaIncentive',
  'ERC20VariableCriteriaIncentiveV2',
  'ERC20PeggedIncentive',
  'ERC20PeggedVariableCriteriaIncentive',
  'ERC20PeggedVariableCriteriaIncentiveV2',
] as const;
export const ACTION_TEMPLATE_CATEGORIES = [
  'defi',
  'nft',
  'gaming',
  'social',
  'bridge',
  'governance',
  'payments',
  'other',
] as const;
export const SIGNATURE_TYPES = ['event', 'function'] as const;
export const TEMPLATE_STATUSES = ['pending', 'approved', 'rejected', 'duplicated'] as const;
export const TEMPLATE_DISTRIBUTION_CHANNELS = ['public', 'farcaster', 'worldcoin', 'celo', 'rabbithole'] as const;
export const REGISTRY_TYPES = ['ACTION', 'ALLOW_LIST', 'BUDGET', 'INCENTIVE', 'VALIDATOR'] as const;
export const MEMBER_STATUSES = ['wallet_created', 'invited', 'accepted', 'cancelled'] as const;
/** Budget member roles: 1 = MANAGER, 2 = ADMIN. */
export const MEMBER_ROLES = [1, 2] as const;

const oneOf = (column: string, values: readonly string[]) =>
  sql.raw(`${column} IN (${values.map((value) => `'${value}'`).join(', ')})`);

export const tokens = pgTable(
  'tokens',
  {
    chainId: integer('chain_id').notNull(),
    address: text('address').notNull(),
    /** The system ID the API reports as `metadata.id`. */
    id: uuid('id').notNull().unique(),
    name: text('name').notNull(),
    symbol: text('symbol').notNull(),
    decimals: smallint('decimals').notNull(),
    imageUri: text('image_uri').notNull(),
    isWhitelisted: boolean('is_whitelisted').notNull().default(false),
    /** The current price: budgets are valued with it, and it is `actionTokenMetadata.priceUsd`. */
    priceUsd: numeric('price_usd', { precision: 38, scale: 18 }),
    marketCapUsd: usd('market_cap_usd'),
    priceChange24hPct: numeric('price_change_24h_pct', { precision: 12, scale: 4 }),
    volume24hUsd: usd('volume_24h_usd'),
    holders: integer('holders'),
    /** Marked blocked by the operator on this chain (GET /blocklist); a blocked token is never whitelisted. */
    isBlocked: boolean('is_blocked').notNull().default(false),
    /**
     * `decimals` were read from the token's contract by the indexer (src/indexer/tokens.ts): an import
     * does not change them, and the indexer does not read the token again.
     */
    decimalsFromChain: boolean('decimals_from_chain').notNull().default(false),
    /**
     * Who set `price_usd`: `import` (an import file, or any other writer of the row), or the price
     * source whose newest quote it is (src/ingest/prices.ts). Only an imported price enters the price
     * history through the tokens' trigger.
     */
    priceSource: text('price_source').notNull().default('import'),
  },
  (table) => [
    primaryKey({ columns: [table.chainId, table.address] }),
    check('tokens_address_format', isAddress('address')),
    check('tokens_decimals_range', sql`${table.decimals} BETWEEN 0 AND 77`),
    check('tokens_blocked_not_whitelisted', sql`NOT (${table.isBlocked} AND ${table.isWhitelisted})`),
  ],
);

/**
 * USD prices of tokens over time, per source: what claims are valued with, at their block's time
 * (claim_value()). A token's current price, for budgets and market data, stays `tokens.price_usd`.
 * The native token of a chain is `0x0000000000000000000000000000000000000000`.
 */
export const tokenPrices = pgTable(
  'token_prices',
  {
    chainId: integer('chain_id').notNull(),
    address: text('address').notNull(),
    /** The time the price is from, as its source says. */
    at: timestamptz('at').notNull(),
    /** `import`, or the name of the price source (`defillama`, `chainlink`). */
    source: text('source').notNull(),
    priceUsd: numeric('price_usd', { precision: 38, scale: 18 }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.chainId, table.address, table.at, table.source] }),
    check('token_prices_address_format', isAddress('address')),
    check('token_prices_positive', sql`${table.priceUsd} > 0`),
  ],
);

export const projects = pgTable(
  'projects',
  {
    id: uuid('id').primaryKey(),
    name: text('name').notNull(),
    imageUri: text('image_uri').notNull(),
    url: text('url').notNull(),
    verificationLevel: text('verification_level').notNull(),
    /**
     * The public identifier (`zora`): the name in lowercase with every run of other characters made
     * one '-'. Derived, so the name stays its only source; two projects cannot share one.
     */
    slug: text('slug')
      .notNull()
      .generatedAlwaysAs(sql`trim(both '-' from regexp_replace(lower(name), '[^a-z0-9]+', '-', 'g'))`),
  },
  (table) => [unique('projects_slug_unique').on(table.slug)],
);

export const actionTemplates = pgTable(
  'action_templates',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id),
    /** What the user does to qualify, e.g. `mint`, `swap`; matched by trending's actionType filters. */
    actionType: text('action_type').notNull(),
    description: text('description').notNull(),
    category: text('category').notNull(),
    /** Short title (GET /action-templates). */
    title: text('title').notNull(),
    /** How a campaign made from the template is set up: the campaignConfig object, as the API shows it. */
    campaignConfig: jsonb('campaign_config').notNull().$type<Record<string, unknown>>(),
    /** Auto-naming: `{ template, campaignNameGenerator, abiFilters }`, as the API shows it. */
    nameConfig: jsonb('name_config').notNull().$type<Record<string, unknown>>(),
    isActive: boolean('is_active').notNull().default(true),
    urlTemplate: text('url_template'),
    /** Addresses allowed to use the template; empty: everyone. */
    allowlist: text('allowlist').array().notNull().default(sql`'{}'::text[]`),
    distributionChannels: text('distribution_channels').array().notNull().default(sql`'{}'::text[]`),
    verificationLevel: text('verification_level'),
    /** Who built the template: `{ createdAt, actionChain, budgetAccount: { chainId, address }, ... }`, or null. */
    builderMetadata: jsonb('builder_metadata').$type<Record<string, unknown>>(),
    /** The builder's budget account address, for the `address` filter of GET /action-templates. */
    builderBudgetAccount: text('builder_budget_account').generatedAlwaysAs(
      sql`lower(builder_metadata #>> '{budgetAccount,address}')`,
    ),
    status: text('status').notNull().default('approved'),
  },
  (table) => [
    check('action_templates_category', oneOf('category', ACTION_TEMPLATE_CATEGORIES)),
    check('action_templates_status', oneOf('status', TEMPLATE_STATUSES)),
    check(
      'action_templates_distribution_channels',
      sql.raw(`distribution_channels <@ ARRAY[${TEMPLATE_DISTRIBUTION_CHANNELS.map((c) => `'${c}'`).join(', ')}]::text[]`),
    ),
    check('action_templates_campaign_config_object', sql`jsonb_typeof(${table.campaignConfig}) = 'object'`),
    check('action_templates_name_config_object', sql`jsonb_typeof(${table.nameConfig}) = 'object'`),
    index('action_templates_action_type_idx').on(table.actionType),
    index('action_templates_builder_budget_account_idx').on(table.builderBudgetAccount),
  ],
);

/**
 * Signatures (event topics, function selectors zero-padded to 32 bytes) the service can name, for
 * campaign configuration screens (GET /known-signatures).
 */
export const knownSignatures = pgTable(
  'known_signatures',
  {
    id: text('id').primaryKey(),
    textSignature: text('text_signature').notNull(),
    abiItem: jsonb('abi_item').$type<Record<string, unknown>>(),
    signatureType: text('signature_type').notNull(),
  },
  () => [
    check('known_signatures_id_format', sql.raw(`length(id) = 66 AND id ~ '^0x[0-9a-f]*$'`)),
    check('known_signatures_type', oneOf('signature_type', SIGNATURE_TYPES)),
  ],
);

/** The on-chain registry's budget accounts (GET /budget-accounts). Natural key: chain, address. */
export const budgetAccounts = pgTable(
  'budget_accounts',
  {
    chainId: integer('chain_id').notNull(),
    address: text('address').notNull(),
    registryType: text('registry_type').notNull(),
    baseImplementation: text('base_implementation').notNull(),
    deployedInstance: text('deployed_instance').notNull(),
    txHash: text('tx_hash').notNull(),
    /** Unix time of the deploying block, in seconds. */
    blockTimestamp: bigint('block_timestamp', { mode: 'number' }).notNull(),
    blockNumber: bigint('block_number', { mode: 'number' }).notNull(),
    name: text('name'),
    owner: text('owner').notNull(),
    /** Personal data: stored when a source has it, never served (the API sends null). */
    ownerEmail: text('owner_email'),
    /** Excluded from listings; still found by ID. */
    hidden: boolean('hidden').notNull().default(false),
    label: text('label'),
    deprecated: boolean('deprecated').notNull().default(false),
  },
  (table) => [
    primaryKey({ columns: [table.chainId, table.address] }),
    check('budget_accounts_address_format', isAddress('address')),
    check('budget_accounts_owner_format', isAddress('owner')),
    check('budget_accounts_base_implementation_format', isAddress('base_implementation')),
    check('budget_accounts_deployed_instance_format', isAddress('deployed_instance')),
    check('budget_accounts_registry_type', oneOf('registry_type', REGISTRY_TYPES)),
    // The listing's order, with and without the owner filter; hidden accounts are never listed.
    index('budget_accounts_listed_idx').on(table.chainId, table.address).where(sql`NOT hidden`),
    index('budget_accounts_owner_idx').on(table.owner, table.chainId, table.address).where(sql`NOT hidden`),
  ],
);

export const budgetAccountMembers = pgTable(
  'budget_account_members',
  {
    chainId: integer('chain_id').notNull(),
    accountAddress: text('account_address').notNull(),
    memberAddress: text('member_address').notNull(),
    /** 1 = MANAGER, 2 = ADMIN. */
    roles: smallint('roles').array().notNull(),
    /** Personal data: stored when a source has it, never served (the API sends null). */
    email: text('email'),
    status: text('status'),
  },
  (table) => [
    primaryKey({ columns: [table.chainId, table.accountAddress, table.memberAddress] }),
    foreignKey({
      name: 'budget_account_members_account_fk',
      columns: [table.chainId, table.accountAddress],
      foreignColumns: [budgetAccounts.chainId, budgetAccounts.address],
    }).onDelete('cascade'),
    index('budget_account_members_member_idx').on(table.memberAddress, table.chainId, table.accountAddress),
    check('budget_account_members_member_format', isAddress('member_address')),
    check('budget_account_members_roles', sql`${table.roles} <@ ARRAY[1, 2]::smallint[]`),
    check('budget_account_members_status', sql`${table.status} IS NULL OR ${oneOf('status', MEMBER_STATUSES)}`),
  ],
);

/** Named contracts known to the service; explore-contracts lists the ones campaigns target. */
export const contracts = pgTable(
  'contracts',
  {
    chainId: integer('chain_id').notNull(),
    address: text('address').notNull(),
    name: text('name').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.chainId, table.address] }),
    check('contracts_address_format', isAddress('address')),
  ],
);

export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    address: text('address').notNull().unique(),
    score: integer('score').notNull().default(0),
  },
  (table) => [
    check('users_address_format', isAddress('address')),
    index('users_score_idx').on(table.score.desc()),
  ],
);

export const accessLists = pgTable(
  'access_lists',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    ownerUserId: uuid('owner_user_id')
      .notNull()
      .references(() => users.id),
    name: text('name').notNull(),
    icon: text('icon').notNull(),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
  },
  (table) => [index('access_lists_owner_created_idx').on(table.ownerUserId, table.createdAt.desc(), table.id)],
);

export const accessListMembers = pgTable(
  'access_list_members',
  {
    accessListId: uuid('access_list_id')
      .notNull()
      .references(() => accessLists.id, { onDelete: 'cascade' }),
    address: text('address').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.accessListId, table.address] }),
    check('access_list_members_address_format', isAddress('address')),
  ],
);

export const allowLists = pgTable(
  'allow_lists',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    chainId: integer('chain_id').notNull(),
    contractAddress: text('contract_address').notNull(),
    owner: text('owner').notNull(),
    type: text('type').notNull(),
    /** Membership of an `OffchainAccessList` lives in this access list. */
    accessListId: uuid('access_list_id').references(() => accessLists.id),
  },
  (table) => [
    unique('allow_lists_contract_unique').on(table.chainId, table.contractAddress),
    check('allow_lists_type', oneOf('type', ALLOW_LIST_TYPES)),
    check('allow_lists_contract_format', isAddress('contract_address')),
    check('allow_lists_owner_format', isAddress('owner')),
    check(
      'allow_lists_offchain_has_access_list',
      sql`(${table.type} = 'OffchainAccessList') = (${table.accessListId} IS NOT NULL)`,
    ),
  ],
);

export const allowListAddresses = pgTable(
  'allow_list_addresses',
  {
    allowListId: integer('allow_list_id')
      .notNull()
      .references(() => allowLists.id, { onDelete: 'cascade' }),
    address: text('address').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.allowListId, table.address] }),
    check('allow_list_addresses_format', isAddress('address')),
  ],
);

export const campaigns = pgTable(
  'campaigns',
  {
    key: integer('key').primaryKey().generatedByDefaultAsIdentity(),
    publicId: textC('public_id')
      .notNull()
      .generatedAlwaysAs(sql`(chain_id::text || ':' || core_address || ':' || identifier::text)`),
    chainId: integer('chain_id').notNull(),
    coreAddress: text('core_address').notNull(),
    /** The third part of the public ID: a uint256 the core contract assigns. */
    identifier: uint256('identifier').notNull(),
    /** The campaign's sequence number in its core contract. */
    campaignIndex: uint256('campaign_index').notNull(),
    owner: text('owner').notNull(),
    /** The account that deployed the campaign (trending's creatorAddress, explore's userAddress). */
    creator: text('creator').notNull(),
    budget: text('budget').notNull(),
    validator: text('validator').notNull(),
    action: text('action').notNull(),
    protocolFee: uint256('protocol_fee').notNull(),
    maxParticipants: uint256('max_participants').notNull(),
    /** Unix time of the creating block, in seconds. */
    blockTimestamp: bigint('block_timestamp', { mode: 'number' }).notNull(),
    blockNumber: bigint('block_number', { mode: 'number' }).notNull(),
    txHash: text('tx_hash').notNull(),
    startTime: timestamptz('start_time'),
    endTime: timestamptz('end_time'),
    distributionChannels: text('distribution_channels').array().notNull().default(sql`'{}'::text[]`),
    autocampaignId: text('autocampaign_id'),
    templateId: text('template_id'),
    actionTemplateId: uuid('action_template_id').references(() => actionTemplates.id),
    allowListId: integer('allow_list_id').references(() => allowLists.id),
    campaignName: text('campaign_name'),
    nftImageUri: text('nft_image_uri'),
    nftName: text('nft_name'),
    nftMetadataId: text('nft_metadata_id'),
    projectImageUri: text('project_image_uri'),
    tokenImageUri: text('token_image_uri'),
    /** How to read the claimant from a qualifying transaction; the contract's name comes from `contracts`. */
    actionClaimant: jsonb('action_claimant').$type<ActionClaimantDocument>(),
    /** True while at least one incentive is not exhausted; maintained by `refresh_campaigns()`. */
    hasBudgetLeft: boolean('has_budget_left').notNull().default(false),
    /**
     * False when an incentive pays a token that is not on the token whitelist (or unknown);
     * the default `tokenWhitelist=true` hides those campaigns. Maintained by `refresh_campaigns()`.
     */
    paysOnlyWhitelistedTokens: boolean('pays_only_whitelisted_tokens').notNull().default(true),
    /** The token a swap action buys or sells (trending's actionTokenMetadata); null for other actions. */
    actionTokenAddress: text('action_token_address'),
  },
  (table) => [
    unique('campaigns_public_id_unique').on(table.publicId),
    unique('campaigns_natural_key').on(table.chainId, table.coreAddress, table.identifier),
    index('campaigns_recent_idx').on(table.blockTimestamp.desc(), table.publicId),
    // The default list (tokenWhitelist=true) in its default order, index-only down to deep pages.
    index('campaigns_recent_whitelisted_idx')
      .on(table.blockTimestamp.desc(), table.publicId, table.key)
      .where(sql`pays_only_whitelisted_tokens`),
    // When the next campaign starts or ends: how long a cached count of active campaigns holds.
    index('campaigns_start_time_idx').on(table.startTime),
    index('campaigns_end_time_idx').on(table.endTime),
    index('campaigns_owner_idx').on(table.owner, table.blockTimestamp.desc()),
    index('campaigns_creator_idx').on(table.creator),
    index('campaigns_budget_idx').on(table.budget),
    index('campaigns_chain_idx').on(table.chainId, table.blockTimestamp.desc()),
    index('campaigns_autocampaign_idx').on(table.autocampaignId),
    index('campaigns_action_template_idx').on(table.actionTemplateId),
    index('campaigns_distribution_channels_idx').using('gin', table.distributionChannels),
    check('campaigns_core_address_format', isAddress('core_address')),
    check('campaigns_owner_format', isAddress('owner')),
    check('campaigns_creator_format', isAddress('creator')),
    check('campaigns_budget_format', isAddress('budget')),
    check('campaigns_validator_format', isAddress('validator')),
    check('campaigns_action_format', isAddress('action')),
    check('campaigns_action_token_format', isAddressOrNull('action_token_address')),
  ],
);

export interface ActionClaimantDocument {
  signature: string;
  signatureName: string;
  signatureType: (typeof SIGNATURE_TYPES)[number];
  fieldIndex: number;
  targetContract: string;
  chainId: number;
}

/**
 * One row per incentive. `params` holds the variant's own fields exactly as the API shows them
 * (without `type`, the claim totals and token metadata, which have their own sources).
 * The budget columns are derived from `params` by PostgreSQL, so the JSONB stays the single source.
 */
export const incentives = pgTable(
  'incentives',
  {
    campaignKey: integer('campaign_key')
      .notNull()
      .references(() => campaigns.key, { onDelete: 'cascade' }),
    /** 0-based position in the campaign; the `incentiveId` of claim signatures. */
    position: smallint('position').notNull(),
    type: text('type').notNull(),
    params: jsonb('params').notNull().$type<Record<string, unknown>>(),
    /** The paying asset, for the `tokens` filter and the token whitelist. */
    assetAddress: text('asset_address').generatedAlwaysAs(sql`lower(params->>'asset')`),
    /** Maximum number of claims, for the variants limited by count. */
    claimLimit: numeric('claim_limit').generatedAlwaysAs(
      sql`CASE WHEN type IN ('AllowListIncentive', 'PointsIncentive', 'ERC20Incentive') THEN (params->>'limit')::numeric END`,
    ),
    /** Maintained from `claims` by trigger. */
    totalClaims: bigint('total_claims', { mode: 'number' }).notNull().default(0),
    totalAmountClaimed: numeric('total_amount_claimed').notNull().default('0'),
    totalUsdClaimed: usd('total_usd_claimed').notNull().default('0'),
    /**
     * What the incentive holds on chain (its asset's `balanceOf`) at the indexer's last read of it;
     * null for an incentive only an import wrote, or one without an asset.
     */
    balance: numeric('balance'),
    /**
     * Total asset amount the incentive can pay out, for the variants that hold a token budget: what it
     * holds on chain plus what it paid, when the chain was read (clawbacks, top-ups and raffle draws
     * included); otherwise from `params`, where a RAFFLE ERC20Incentive (strategy 1) is funded with
     * one prize, `reward`, whatever its entries.
     */
    totalBudget: numeric('total_budget').generatedAlwaysAs(
      sql`CASE WHEN balance IS NOT NULL THEN balance + total_amount_claimed ELSE CASE type
        WHEN 'AllowListIncentive' THEN NULL
        WHEN 'PointsIncentive' THEN NULL
        WHEN 'ERC20Incentive' THEN CASE WHEN (params->>'strategy')::int = 1 THEN (params->>'reward')::numeric
                                        ELSE (params->>'reward')::numeric * (params->>'limit')::numeric END
        WHEN 'CGDAIncentive' THEN (params->>'totalBudget')::numeric
        ELSE (params->>'limit')::numeric
      END END`,
    ),
  },
  (table) => [
    primaryKey({ columns: [table.campaignKey, table.position] }),
    check('incentives_type', oneOf('type', INCENTIVE_TYPES)),
    check('incentives_params_object', sql`jsonb_typeof(${table.params}) = 'object'`),
    index('incentives_asset_idx').on(table.assetAddress, table.campaignKey),
  ],
);

export const actionSteps = pgTable(
  'action_steps',
  {
    campaignKey: integer('campaign_key')
      .notNull()
      .references(() => campaigns.key, { onDelete: 'cascade' }),
    position: smallint('position').notNull(),
    chainId: integer('chain_id').notNull(),
    targetContract: text('target_contract').notNull(),
    claimant: text('claimant'),
    signature: text('signature').notNull(),
    signatureName: text('signature_name').notNull(),
    signatureType: text('signature_type').notNull(),
    actionType: integer('action_type').notNull(),
    parameters: jsonb('parameters').notNull().$type<ActionStepParameters>(),
  },
  (table) => [
    primaryKey({ columns: [table.campaignKey, table.position] }),
    index('action_steps_target_idx').on(table.chainId, table.targetContract, table.campaignKey),
    check('action_steps_signature_type', oneOf('signature_type', SIGNATURE_TYPES)),
    check('action_steps_target_format', isAddress('target_contract')),
    check('action_steps_claimant_format', isAddressOrNull('claimant')),
  ],
);

export interface ActionStepParameters {
  filterType: number;
  fieldType: number;
  fieldIndex: number;
  filterData: string;
}

export const claims = pgTable(
  'claims',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    campaignKey: integer('campaign_key').notNull(),
    incentivePosition: smallint('incentive_position').notNull(),
    claimant: text('claimant').notNull(),
    /** In the asset's base units (wei for 18-decimal tokens). */
    amount: uint256('amount').notNull(),
    usdValue: usd('usd_value').notNull(),
    ethValueWei: uint256('eth_value_wei').notNull(),
    txHash: text('tx_hash').notNull(),
    claimedAt: timestamptz('claimed_at').notNull(),
    /**
     * The chain of the claim's campaign, part of the natural key. claims_check() checks that
     * they are equal and campaign_chain_fixed() that a campaign's chain never changes (src/db/sql/);
     * a foreign key to campaigns (key, chain_id) did, and locked the campaign's row for every claim.
     */
    chainId: integer('chain_id').notNull(),
    /** Position of the claim's event log in its block; with the chain and transaction hash, the natural key. */
    logIndex: integer('log_index').notNull(),
    /**
     * The USD or ETH value waits for a price at the claim's time (claim_value()): a claim written
     * without values before its token's price was known. revalue_claims() fills them in when prices
     * arrive; until then they are 0.
     */
    valuePending: boolean('value_pending').notNull().default(false),
    /** The block of the claim's event log, where known (the indexer always knows it; an import file may say it). */
    blockNumber: bigint('block_number', { mode: 'number' }),
    /**
     * A RAFFLE's draw: the payout to its winner (a Claimed without a BoostClaimed), written as a row
     * of the winner so that its amount and USD count in every total and volume, but not a claim: no
     * claim count, activity feed or claim day includes it. A RAFFLE's entries are claims of amount 0
     *, so the write sets it for a positive amount of a RAFFLE ERC20Incentive
     * (src/ingest/merge.ts).
     */
    draw: boolean('draw').notNull().default(false),
  },
  (table) => [
    foreignKey({
      name: 'claims_incentive_fk',
      columns: [table.campaignKey, table.incentivePosition],
      foreignColumns: [incentives.campaignKey, incentives.position],
    }).onDelete('cascade'),
    unique('claims_natural_key').on(table.chainId, table.txHash, table.logIndex),
    index('claims_claimed_at_idx').on(table.claimedAt),
    // A campaign's claims newest first, ties on id: the activity feed and a reward's claim list.
    index('claims_campaign_claimed_at_idx').on(table.campaignKey, table.claimedAt, table.id),
    // A claimant's claims by campaign: whether they claimed a campaign (trending and reward-kit entries
    // with a claimant, one lookup per entry), their latest claim of each, and all of theirs (profile).
    index('claims_claimant_campaign_idx').on(table.claimant, table.campaignKey, table.claimedAt),
    // The claims that wait for a price: found by time (the price job looks newest first, a new price
    // values those within two hours after it), then chain.
    index('claims_value_pending_idx').on(table.claimedAt, table.chainId).where(sql`${table.valuePending}`),
    check('claims_claimant_format', isAddress('claimant')),
  ],
);

/** A transaction id that never wraps around (`pg_current_xact_id()`), and a snapshot of which ones were in progress. */
const xid8 = customType<{ data: string }>({ dataType: () => 'xid8' });
const pgSnapshot = customType<{ data: string }>({ dataType: () => 'pg_snapshot' });

/**
 * A campaign's payments by UTC hour and incentive (so a campaign's history reads hours, not claims),
 * as of the snapshot in `claim_history_applied`: `apply_claim_history()` brings it forward from the
 * claim changes committed since, outside the writing transactions. `rows` counts its claims and
 * raffle draws (the row goes when it reaches 0), `claims` the claims alone; `amount` and `usd` sum
 * both, as the incentives' totals do. A revaluation moves `usd`, a removed claim leaves.
 * No foreign key: a campaign's claims leave through the claim changes, which remove emptied rows.
 */
export const claimHours = pgTable(
  'claim_hours',
  {
    campaignKey: integer('campaign_key').notNull(),
    hour: timestamptz('hour').notNull(),
    incentivePosition: smallint('incentive_position').notNull(),
    rows: integer('rows').notNull(),
    claims: integer('claims').notNull(),
    amount: numeric('amount').notNull(),
    usd: numeric('usd').notNull(),
  },
  (table) => [primaryKey({ columns: [table.campaignKey, table.hour, table.incentivePosition] })],
);

/**
 * A campaign's claimants by UTC hour and by UTC day (`unit`), kept like `claim_hours`: distinct
 * addresses that claimed in the bucket, and those whose first claim of the campaign is in it (raffle
 * draws are not claims). A row goes when both reach 0.
 */
export const claimantBuckets = pgTable(
  'claimant_buckets',
  {
    campaignKey: integer('campaign_key').notNull(),
    /** `hour` or `day`. */
    unit: text('unit').notNull(),
    start: timestamptz('start').notNull(),
    claimants: integer('claimants').notNull(),
    newClaimants: integer('new_claimants').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.campaignKey, table.unit, table.start] }),
    check('claimant_buckets_unit', sql`${table.unit} IN ('hour', 'day')`),
  ],
);

/**
 * Each claimant's first claim of each campaign (raffle draws are not claims), kept like
 * `claim_hours`: where it stood as of the applied snapshot is what says which bucket loses a new
 * claimant when a claimant's first claim moves.
 */
export const claimantFirsts = pgTable(
  'claimant_firsts',
  {
    campaignKey: integer('campaign_key').notNull(),
    claimant: text('claimant').notNull(),
    firstAt: timestamptz('first_at').notNull(),
  },
  (table) => [primaryKey({ columns: [table.campaignKey, table.claimant] })],
);

/**
 * One row: the snapshot `claim_hours`, `claimant_buckets` and `claimant_firsts` stand at. Every claim
 * change committed before it (visible in it) is in them; those committed since are read from
 * `claim_changes` (`apply_claim_history()` applies them, `campaign_history()` adds them to what it reads).
 */
export const claimHistoryApplied = pgTable(
  'claim_history_applied',
  {
    one: boolean('one').primaryKey().default(true),
    snapshot: pgSnapshot('snapshot').notNull(),
  },
  (table) => [check('claim_history_applied_one', sql`${table.one}`)],
);

export const claimSignatures = pgTable(
  'claim_signatures',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    campaignKey: integer('campaign_key')
      .notNull()
      .references(() => campaigns.key, { onDelete: 'cascade' }),
    claimant: text('claimant').notNull(),
    incentiveId: smallint('incentive_id').notNull(),
    signature: text('signature').notNull(),
    referrer: text('referrer').notNull(),
    used: boolean('used').notNull().default(false),
    /** The transaction GET /signatures signed for (null for a signature an import wrote): the same request gets the same answer. */
    txHash: text('tx_hash'),
  },
  (table) => [
    // The natural key: a validator signs one payload once.
    unique('claim_signatures_natural_key').on(table.campaignKey, table.signature),
    index('claim_signatures_claimant_idx').on(table.claimant, table.campaignKey),
    // An address's unused signatures, newest first (GET /signatures/claimable/{address}, /reward-kit).
    index('claim_signatures_unused_idx').on(table.claimant, table.id.desc()).where(sql`NOT used`),
    index('claim_signatures_tx_idx').on(table.campaignKey, table.txHash).where(sql`tx_hash IS NOT NULL`),
    check('claim_signatures_claimant_format', isAddress('claimant')),
    check('claim_signatures_referrer_format', isAddress('referrer')),
    check('claim_signatures_tx_hash_format', sql.raw(`tx_hash IS NULL OR (length(tx_hash) = 66 AND tx_hash ~ '^0x[0-9a-f]*$')`)),
  ],
);

/** Bearer tokens: only the SHA-256 of a token is stored. */
export const apiTokens = pgTable(
  'api_tokens',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    tokenHash: text('token_hash').notNull().unique(),
    label: text('label'),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    revokedAt: timestamptz('revoked_at'),
  },
  () => [check('api_tokens_hash_format', sql.raw(`token_hash ~ '^[0-9a-f]{64}$'`))],
);

/**
 * Each campaign's list item and detail object, serialized once when the campaign, its incentives,
 * steps, allow list or tokens change (by `refresh_campaigns()`, called from triggers), so a read sends
 * stored text instead of building JSON per request. What claims change comes from `campaign_live`
 * and `isActive` (it depends on the clock) is decided per request: both are filled in at read time.
 */
export const campaignDocuments = pgTable('campaign_documents', {
  campaignKey: integer('campaign_key')
    .primaryKey()
    .references(() => campaigns.key, { onDelete: 'cascade' }),
  listItem: text('list_item').notNull(),
  detail: text('detail').notNull(),
});

/**
 * The fields of a campaign's documents that claims change, kept apart so that a claim rewrites this
 * short row rather than the documents (`refresh_campaign_live()`): per incentive with live fields,
 * in position order, its `claimedAmount` .. `remainingBalance` members; the list item's `usdSpend`,
 * `tokenSpend` and `availableBudgetUsd`; the detail's `availableBudgetUsd`. The documents hold the
 * placeholder U+0001 where these go, in that order; readers fill them in.
 */
export const campaignLive = pgTable('campaign_live', {
  campaignKey: integer('campaign_key')
    .primaryKey()
    .references(() => campaigns.key, { onDelete: 'cascade' }),
  incentiveFields: text('incentive_fields').array().notNull(),
  listTotals: text('list_totals').notNull(),
  detailTotals: text('detail_totals').notNull(),
});

/**
 * One row whose `value` grows whenever the set of campaigns or anything the list filters on
 * changes (never on a claim alone). A cached count stays valid while the value is unchanged.
 * `targets` grows with it, except when only a campaign's derived flags flipped (a claim that spent
 * an incentive's budget, refresh_campaign_flags()): which campaigns target which named contracts,
 * what explore contracts rereads when it changes, does not depend on them.
 */
export const campaignSetVersion = pgTable(
  'campaign_set_version',
  {
    id: smallint('id').primaryKey().default(1),
    value: bigint('value', { mode: 'number' }).notNull().default(0),
    targets: bigint('targets', { mode: 'number' }).notNull().default(0),
  },
  () => [check('campaign_set_version_single_row', sql`id = 1`)],
);

/**
 * Where the versions of trending entries come from: every bump takes the next value, so a version is
 * never given twice, not even to a campaign key reused after a TRUNCATE.
 */
export const entryVersionSequence = pgSequence('entry_version_seq');

/**
 * The version of each campaign's trending entry: what the API's entry cache compares before it
 * reuses an entry it built. Taken from `entry_version_seq` whenever a row the entry shows changes:
 * the campaign, its allow list's type or its incentives (claim totals included), by
 * `refresh_campaigns()` and `claims_totals()`. One lookup per campaign
 * instead of reading the version of every row an entry is built from.
 */
export const entryVersions = pgTable('entry_versions', {
  campaignKey: integer('campaign_key')
    .primaryKey()
    .references(() => campaigns.key, { onDelete: 'cascade' }),
  version: bigint('version', { mode: 'number' }).notNull(),
});

/**
 * One row: the version of the rows many entries share (tokens, action templates, projects), taken
 * from `entry_version_seq` by any write to them (`entry_shared_after_write()`). Such writes are rare,
 * and one of them makes every kept entry be built again instead of fanning out to every campaign.
 */
export const entrySharedVersion = pgTable(
  'entry_shared_version',
  {
    id: smallint('id').primaryKey().default(1),
    value: bigint('value', { mode: 'number' }).notNull().default(0),
  },
  () => [check('entry_shared_version_single_row', sql`id = 1`)],
);

/**
 * Every change to the claims that claim volumes depend on, in the writing transaction (trigger
 * `claims_volume_feed`): +1 for a claim added, -1 for one removed, both for an update that moves a
 * claim to another campaign or instant; `sign` 0 with a campaign for an update of a claim's value
 * alone (`usd_value` is then the difference, and the count stays); `sign` 0 without a campaign says
 * the claims were reloaded wholesale (TRUNCATE, bulk load) and readers must reload.
 * `xid` is the writer's transaction: a reader that saved `pg_current_snapshot()` finds exactly the
 * changes committed since with `NOT pg_visible_in_snapshot(xid, saved)`, whatever order writers
 * commit in. Rows are pruned once every reader must have seen them (see `claim_change_marks`).
 * The same rows tell a kept reward-kit profile that its claimant's claims changed
 * (`claimant_changed_since()`, through `claim_changes_claimant_xid_idx`): a claim's write records
 * one change row, not one per consumer.
 */
export const claimChanges = pgTable(
  'claim_changes',
  {
    xid: xid8('xid').notNull().default(sql`pg_current_xact_id()`),
    campaignKey: integer('campaign_key'),
    claimedAt: timestamptz('claimed_at'),
    usdValue: usd('usd_value'),
    sign: smallint('sign').notNull(),
    /**
     * The campaign's public ID, so that a reader needs no other table (and waits on no lock of one).
     * Null in a reload marker, which has no campaign.
     */
    publicId: textC('public_id'),
    /** The claim's claimant, for the claimant leaderboards kept in memory and the kept profiles; null in a reload marker. */
    claimant: text('claimant'),
  },
  (table) => [
    index('claim_changes_xid_idx').on(table.xid),
    index('claim_changes_claimant_xid_idx').on(table.claimant, table.xid),
    check(
      'claim_changes_shape',
      sql`(sign IN (-1, 0, 1) AND campaign_key IS NOT NULL AND claimed_at IS NOT NULL AND usd_value IS NOT NULL AND claimant IS NOT NULL)
          OR (sign = 0 AND campaign_key IS NULL AND claimed_at IS NULL AND usd_value IS NULL AND claimant IS NULL)`,
    ),
  ],
);

/**
 * Every write to the rows a reward-kit profile shows of its claimant alone besides its claims (its
 * claim signatures, the allow-list addresses and access-list members naming its address; a claim's
 * write is in `claim_changes`), one row per claimant and statement, in the writing transaction
 * (trigger `claimant_after_write()`). The API
 * keeps a built profile with the snapshot it was read in and finds the claimant's writes committed
 * since with `NOT pg_visible_in_snapshot(xid, saved)`, whatever order writers commit in
 * (`claimant_changed_since()`). Only inserted, never updated: two writers of one claimant never wait
 * on each other. Pruned with the claim changes (`prune_claim_changes()`).
 */
export const claimantChanges = pgTable(
  'claimant_changes',
  {
    claimant: text('claimant').notNull(),
    xid: xid8('xid').notNull().default(sql`pg_current_xact_id()`),
  },
  // No index on `xid` alone: the once-a-minute prune reads the table (ten minutes of writes) more
  // cheaply than every write would keep a second index.
  (table) => [index('claimant_changes_claimant_xid_idx').on(table.claimant, table.xid)],
);

/**
 * Snapshots taken by writers at most once a minute. Changes committed before a mark older than the
 * retention are deleted: a reader polls far more often, and one that has not polled for half the
 * retention reloads instead of reading the feed.
 */
export const claimChangeMarks = pgTable('claim_change_marks', {
  takenAt: timestamptz('taken_at').primaryKey(),
  snapshot: pgSnapshot('snapshot').notNull(),
});

/**
 * What the API's event streams (GET /events) deliver: one row per event, written by the triggers of
 * the tables it reports on (the `*_events.sql` functions of src/db/sql) in the writing
 * transaction, so an event exists exactly when its write committed. `type`, `chain_id`,
 * `campaign_id` and `claimant` are what streams filter on; `data` is the event as clients get it.
 * Within a transaction, `id` orders the events; across transactions, their `event_commits` position.
 */
export const events = pgTable(
  'events',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    xid: xid8('xid').notNull().default(sql`pg_current_xact_id()`),
    type: text('type').notNull(),
    chainId: integer('chain_id'),
    campaignId: textC('campaign_id'),
    claimant: text('claimant'),
    data: jsonb('data').notNull().$type<Record<string, unknown>>(),
  },
  (table) => [index('events_xid_idx').on(table.xid, table.id)],
);

/** The numbers of event-writing transactions in commit order (`order_event_commit()`). */
export const eventCommitSequence = pgSequence('event_commit_seq');

/**
 * Each transaction that wrote events, and its position in commit order: inserted, numbered, as the
 * transaction commits (`order_event_commit()`, a deferred trigger on `events`), so readers only ever
 * see numbered rows.
 */
export const eventCommits = pgTable(
  'event_commits',
  {
    xid: xid8('xid').primaryKey(),
    seq: bigint('seq', { mode: 'number' }),
    committedAt: timestamptz('committed_at'),
  },
  (table) => [unique('event_commits_seq_unique').on(table.seq)],
);

/** One row: the events through `pruned_through` (an event_commits position) are deleted; `pruned_at`, when that was last decided. */
export const eventRetention = pgTable(
  'event_retention',
  {
    id: smallint('id').primaryKey().default(1),
    prunedThrough: bigint('pruned_through', { mode: 'number' }).notNull().default(0),
    prunedAt: timestamptz('pruned_at').notNull().defaultNow(),
    /**
     * How long events wait for an enabled webhook endpoint that has not had them (WEBHOOK_MAX_RETENTION,
     * written by the server at start); 0 = not at all.
     */
    webhookRetentionSeconds: integer('webhook_retention_seconds').notNull().default(0),
  },
  () => [check('event_retention_single_row', sql`id = 1`)],
);

/**
 * The operator's webhook endpoints (npm run webhooks) and where each stands in the event log. An
 * endpoint gets the events after (cursor_seq, cursor_id) that its filters take, one at a time in
 * commit order; a deliverer leases it (lease_owner, lease_until) so that one process at a time sends
 * its events, and moves the cursor past each event its receiver accepted. `secret` and
 * `previous_secret` are sealed with WEBHOOK_SECRET_KEY; the previous one also signs until
 * `previous_secret_until`, while receivers move to the new one.
 */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    url: text('url').notNull(),
    description: text('description'),
    types: text('types').array(),
    chainIds: integer('chain_ids').array(),
    campaignIds: text('campaign_ids').array(),
    claimant: text('claimant'),
    secret: text('secret').notNull(),
    previousSecret: text('previous_secret'),
    previousSecretUntil: timestamptz('previous_secret_until'),
    enabled: boolean('enabled').notNull().default(true),
    disabledReason: text('disabled_reason'),
    disabledAt: timestamptz('disabled_at'),
    cursorSeq: bigint('cursor_seq', { mode: 'number' }).notNull(),
    cursorId: bigint('cursor_id', { mode: 'number' }).notNull(),
    /** When the first of the failures since the last delivery was; NULL while deliveries succeed. */
    failingSince: timestamptz('failing_since'),
    /** Failed attempts at the event the cursor is before. */
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamptz('next_attempt_at').notNull().defaultNow(),
    leaseOwner: text('lease_owner'),
    leaseUntil: timestamptz('lease_until'),
    lastDeliveredAt: timestamptz('last_delivered_at'),
    lastDeliveredId: text('last_delivered_id'),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
  },
  (table) => [
    index('webhook_endpoints_due_idx').on(table.nextAttemptAt).where(sql`${table.enabled}`),
    check('webhook_endpoints_claimant_format', sql`claimant IS NULL OR claimant ~ '^0x[0-9a-f]{40}$'`),
  ],
);

/** Failed delivery attempts, newest kept a week: what npm run webhooks -- attempts lists. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    endpointId: integer('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    eventId: text('event_id').notNull(),
    attemptedAt: timestamptz('attempted_at').notNull().defaultNow(),
    status: integer('status'),
    error: text('error').notNull(),
    nextAttemptAt: timestamptz('next_attempt_at'),
  },
  (table) => [index('webhook_attempts_endpoint_idx').on(table.endpointId, table.attemptedAt)],
);

/**
 * The chain indexer's own state (src/indexer/), written in the same transaction as the records of
 * the blocks it covers, so a crash resumes exactly where the last commit left off.
 *
 * `indexer_checkpoints`: per chain and BoostCore, the last block whose logs are in the database.
 */
export const indexerCheckpoints = pgTable(
  'indexer_checkpoints',
  {
    chainId: integer('chain_id').notNull(),
    coreAddress: text('core_address').notNull(),
    blockNumber: bigint('block_number', { mode: 'number' }).notNull(),
    blockHash: text('block_hash').notNull(),
    blockTimestamp: bigint('block_timestamp', { mode: 'number' }).notNull(),
    updatedAt: timestamptz('updated_at').notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.chainId, table.coreAddress] }), check('indexer_checkpoints_core_format', isAddress('core_address'))],
);

/** Hashes of recently indexed blocks: a reorganisation is found by comparing them with the chain's. */
export const indexerBlocks = pgTable(
  'indexer_blocks',
  {
    chainId: integer('chain_id').notNull(),
    coreAddress: text('core_address').notNull(),
    blockNumber: bigint('block_number', { mode: 'number' }).notNull(),
    blockHash: text('block_hash').notNull(),
  },
  (table) => [primaryKey({ columns: [table.chainId, table.coreAddress, table.blockNumber] })],
);

/**
 * What each indexed block wrote, by natural key, and the record that undoes it: a deletion for what
 * the block created, the record as it was before for what it rewrote. A reorganisation applies, for
 * each natural key, the entry of the first orphaned block that wrote it, through the ingest path.
 */
export const indexerWrites = pgTable(
  'indexer_writes',
  {
    chainId: integer('chain_id').notNull(),
    coreAddress: text('core_address').notNull(),
    blockNumber: bigint('block_number', { mode: 'number' }).notNull(),
    kind: text('kind').notNull(),
    naturalKey: text('natural_key').notNull(),
    record: jsonb('record').notNull().$type<Record<string, unknown>>(),
  },
  (table) => [
    primaryKey({ columns: [table.chainId, table.coreAddress, table.kind, table.naturalKey, table.blockNumber] }),
    index('indexer_writes_block_idx').on(table.chainId, table.coreAddress, table.blockNumber),
  ],
);

/**
 * Each boost's incentive contracts by incentive id, and the position the campaign record gave the
 * incentive (null when its type is not known and it was skipped): claims find their incentive here.
 */
export const indexerIncentives = pgTable(
  'indexer_incentives',
  {
    chainId: integer('chain_id').notNull(),
    coreAddress: text('core_address').notNull(),
    boostId: uint256('boost_id').notNull(),
    incentiveId: integer('incentive_id').notNull(),
    address: text('address').notNull(),
    position: smallint('position'),
    blockNumber: bigint('block_number', { mode: 'number' }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.chainId, table.coreAddress, table.boostId, table.incentiveId] }),
    index('indexer_incentives_block_idx').on(table.chainId, table.coreAddress, table.blockNumber),
    // A Claimed or ToppedUp log names the incentive contract: which boost's incentive it is.
    index('indexer_incentives_address_idx').on(table.chainId, table.coreAddress, table.address),
  ],
);
