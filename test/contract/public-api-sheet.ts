/**
 * The JSON schemas of a client written from the public API's published document (Boost V2, OpenAPI
 * 3.1; a public copy: github.com/api-evangelist/boost, openapi/_original/boost-v2-openapi.json), with
 * the word `campaign` for `boost`: the eighteen JSON operations and the shapes they share (ListItem,
 * Incentive, Entry). Nothing here comes from src/schemas. Field names, types, required-ness and
 * enums are the document's, except where the service answers otherwise (noted inline, listed in
 * docs/public-api.md). Keyed by operationId.
 */
const addr = { type: 'string', pattern: '^0x[a-fA-F0-9]{40}$' };
const str = { type: 'string' };
const num = { type: 'number' };
const int = { type: 'integer' };
const bool = { type: 'boolean' };
const nullable = (schema: object) => ({ anyOf: [schema, { type: 'null' }] });
const arrayOf = (items: object) => ({ type: 'array', items });
/** The document lists each object's fields exactly: anything else is a field the client does not know. */
const obj = (required: Record<string, object>, optional: Record<string, object> = {}) => ({
  type: 'object',
  properties: { ...required, ...optional },
  required: Object.keys(required),
  additionalProperties: false,
});

const INCENTIVE_TYPES = [
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
];
/** Incentive: the list item's oneOf of the document; its variant fields are checked by type only. */
const Incentive = { type: 'object', required: ['type'], properties: { type: { enum: INCENTIVE_TYPES } } };

/** ListItem: the fields every campaign list item carries. */
const ListItem = {
  type: 'object',
  required: [
    'id', 'action', 'allowList', 'campaignIndex', 'budget', 'incentiveCount', 'owner', 'validator', 'blockTimestamp',
    'txHash', 'chainId', 'protocolFee', 'maxParticipants', 'incentives', 'createdAtBlockTimestamp',
  ],
  properties: {
    id: str, action: addr, allowList: nullable({ type: 'object' }), campaignIndex: str, budget: addr, incentiveCount: str,
    owner: addr, validator: addr, blockTimestamp: str, txHash: str, chainId: num, protocolFee: str, maxParticipants: str,
    incentives: arrayOf(Incentive), createdAtBlockTimestamp: str, isActive: bool, usdSpend: num, tokenSpend: num,
  },
};

const TokenMetadata = obj({ id: str, chainId: num, address: addr, decimals: num, name: str, symbol: str, imageUri: str });
/** Entry: the document's trending entry; null only where the service sends null (docs/public-api.md). */
const Entry = obj(
  {
    id: str,
    chainId: int,
    incentives: arrayOf(
      obj(
        { type: str, assetAddress: addr, rewardAmount: str, rewardAmountFormatted: str, maxReward: str, maxRewardUsdValue: num,
          rewardUsdValue: num, metadata: nullable(TokenMetadata) },
        // Left out for fixed rewards and unknown tokens, never null.
        { rewardPercentage: num, rebatePercentage: num, tokenSymbol: str, tokenImageUri: str },
      ),
    ),
    // Null for a campaign without a template.
    actionTemplate: nullable(
      obj({ id: str, projectId: str, actionType: str, projectImage: str, description: str,
            category: { enum: ['defi', 'nft', 'gaming', 'social', 'bridge', 'governance', 'payments', 'other'] } }),
    ),
    status: { enum: ['active', 'claimed', 'claimable'] },
    txHash: str,
    // Not among the strings the document declares non-nullable: null when unknown, as the service always sent it.
    campaignName: nullable(str),
    blockTimestamp: str,
    startTime: nullable(str),
    endTime: nullable(str),
    claimCount: int,
    totalBudget: { type: 'string', pattern: '^[0-9]+$' },
    rewardsDistributed: { type: 'string', pattern: '^[0-9]+$' },
    // Null without a claimant or an unused signature.
    signature: nullable(obj({ claimant: addr, incentiveId: { type: 'integer', minimum: 0 }, signature: str, referrer: addr })),
    accessStatus: nullable({ enum: ['allowed', 'denied', 'not-allowed'] }),
    verificationLevel: nullable(str),
    usdDistributed24Hr: num,
    usdDistributed1Hr: num,
  },
  { nftImageUri: str, nftName: str, tokenImageUri: str, projectUrl: str, actionTokenMetadata: nullable({ type: 'object' }) },
);

const ContractRef = obj({ ID: str, contract_name: str, address: addr, deployment_information: obj({ address: addr, network_id: str }) });
const ParamFilter = obj({ id: str, parameter: str, comparator: str, value: str }, { tupleParameter: str, tupleParameters: arrayOf(str) });
const CHANNELS = { enum: ['public', 'farcaster', 'worldcoin', 'celo', 'rabbithole'] };
const TemplateItem = obj({
  actionTemplate: obj(
    {
      id: str, actionType: str, description: str, title: str,
      campaignConfig: obj(
        {
          selectedContract: ContractRef, selectedSignature: str, parameterFilters: arrayOf(ParamFilter),
          logFilters: arrayOf(obj({ id: str, contract: nullable(ContractRef), signature: nullable(str), parameters: arrayOf(ParamFilter) }, { signatureHash: str })),
          claimantContract: ContractRef, claimantSignature: str, claimantParameterMapping: str,
          reward: obj(
            { budget: str, amount: str, rebatePercentage: num },
            { type: { enum: ['fixed', 'usd-pegged', 'eth-pegged', 'transaction-value', 'variable-criteria', 'pegged-variable-criteria', 'usd-pegged-variable-criteria'] },
              peg: { anyOf: [addr, str] } },
          ),
        },
        {
          selectedSignatureHash: str, selectedAbiItem: { type: 'object' }, claimantSignatureHash: str,
          criteria: obj({ signature: str, valueType: num, fieldIndex: num, criteriaType: num, targetContract: str }),
          rewardMultiplier: { type: 'string', pattern: '^\\d+$' }, distributionChannel: arrayOf(CHANNELS),
        },
      ),
      nameConfig: obj({
        template: str, campaignNameGenerator: str,
        abiFilters: arrayOf(obj({ signature: str, inputArgIndexes: arrayOf(num) }, { inputArgValues: arrayOf(str), targetContract: str })),
      }),
      isActive: bool, urlTemplate: nullable(str), allowlist: arrayOf(addr), distributionChannel: arrayOf(CHANNELS),
      verificationLevel: nullable(str),
      builderMetadata: nullable(
        obj(
          { createdAt: { type: 'string', format: 'date-time' }, actionChain: int, budgetAccount: obj({ chainId: int, address: addr }) },
          { txHash: str, description: str, contactInfo: str, projectUrl: { type: 'string', format: 'uri' },
            projectIconUrl: { type: 'string', format: 'uri' }, isProjectCreator: bool },
        ),
      ),
      status: { enum: ['pending', 'approved', 'rejected', 'duplicated'] },
      category: nullable({ enum: ['defi', 'nft', 'gaming', 'social', 'bridge', 'governance', 'payments', 'other'] }),
    },
    { projectId: str },
  ),
  project: obj({ id: str, url: str, icon: str }),
});

const budgetFields = {
  id: str, identifier: str, registryType: { enum: ['ACTION', 'ALLOW_LIST', 'BUDGET', 'INCENTIVE', 'VALIDATOR'] },
  baseImplementation: addr, deployedInstance: addr, txHash: str, blockTimestamp: str, blockNumber: str,
  chainId: { type: 'integer', minimum: 0 }, address: addr, owner: addr, hidden: bool,
  members: arrayOf(
    obj(
      { memberAddress: addr, roles: arrayOf({ enum: [1, 2] }) },
      // E-mail addresses are personal data the service never serves, so the only value a client sees is null.
      { email: { type: 'null' }, status: { enum: ['wallet_created', 'invited', 'accepted', 'cancelled'] } },
    ),
  ),
  deprecated: bool,
};
const BudgetAccountListed = obj(budgetFields, { name: str, label: nullable(str) });
const BudgetAccount = obj(budgetFields, { name: str, label: nullable(str), ownerEmail: { type: 'null' } });

export const SHEET: Record<string, object> = {
  listCampaigns: obj({ campaigns: arrayOf(ListItem), totalCampaigns: int }),
  getCampaign: { type: 'object', required: ['id', 'actionSteps', 'allowList', 'protocolFee', 'maxParticipants', 'incentives', 'owner', 'isActive', 'createdAt', 'budget'] },
  listTrendingCampaigns: obj({ trendingCampaigns: arrayOf(Entry) }),
  exploreContracts: arrayOf(obj({ chainId: num, address: addr, name: str, stats: obj({ campaignCount: num, totalClaims: num, totalAmountClaimedUsd: num }) })),
  listAccessLists: obj({ accesslists: arrayOf(obj({ id: str, name: str, memberCount: num, createdAt: str, icon: str })), totalAccesslists: int }),
  getUserProfile: { type: 'object', required: ['ethEarned', 'score', 'streak', 'ranking'] },
  getKnownSignatures: obj({
    signatures: arrayOf(obj({ id: str, textSignature: str, signatureType: str }, { abiItem: { type: 'object' } })),
    count: num,
  }),
  exploreCampaigns: obj({ campaigns: arrayOf(ListItem), totalCount: num }),
  getClaimableSignatures: arrayOf(obj({ campaignId: str, signature: str, claimant: addr, incentiveId: num, referrer: addr })),
  getBlocklist: obj({ isBlocked: bool }),
  getCampaignActivity: obj({
    activityEvents: arrayOf(obj({ claimant: addr, blockTimestamp: str, txHash: str, incentives: arrayOf(Incentive) })),
    totalActivityCount: { type: 'integer', minimum: 0 },
  }),
  getRewardKitRewards: obj({ campaigns: arrayOf(Entry) }),
  getRewardKit: obj({
    activeCampaigns: arrayOf(Entry), claimedCampaigns: arrayOf(Entry), claimableCampaigns: arrayOf(Entry),
    totalClaimedAmountUsd: { type: 'number', minimum: 0 }, totalClaimableAmountUsd: { type: 'number', minimum: 0 },
  }),
  getRewardKitReward: obj(
    {
      campaign: Entry, totalClaims: { type: 'integer', minimum: 0 },
      claims: arrayOf(obj({ address: addr, txHash: str, timestamp: { type: 'string', format: 'date-time' } })),
      status: { enum: ['active', 'claimed', 'claimable'] },
    },
    // The document's nullable accessStatus enum has no null: a strict client accepts only the values.
    { txHash: str, accessStatus: { enum: ['allowed', 'denied', 'not-allowed'] }, verificationLevel: nullable(str) },
  ),
  getActionTemplates: arrayOf(TemplateItem),
  getActionTemplate: TemplateItem,
  getBudgetAccounts: arrayOf(BudgetAccountListed),
  getBudgetAccount: BudgetAccount,
};

