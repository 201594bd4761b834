import type { BudgetAccount, BudgetAccountList, ClaimableSignatureList, KnownSignaturePage, TemplateItem } from './registry.js';

/** Example answers of the registry operations for the API document; a contract test validates them. */

const BASE = 8453;
const BUDGET = '0xa904ef32d569e2ada8f4de6244bf68f36fa219f6';
const OWNER = '0xbe15185fff727606f2a52a11efb819b3ae180841';
const MINTER = '0x777777c338d93e2c7adf08d102d45ca7cc4ed021';

export const KNOWN_SIGNATURES_EXAMPLE: KnownSignaturePage = {
  signatures: [
    {
      id: '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
      textSignature: 'Transfer(address,address,uint256)',
      abiItem: {
        type: 'event',
        name: 'Transfer',
        inputs: [
          { name: 'arg0', type: 'address', indexed: true },
          { name: 'arg1', type: 'address', indexed: true },
          { name: 'arg2', type: 'uint256', indexed: false },
        ],
        anonymous: false,
      },
      signatureType: 'event',
    },
    {
      id: '0x0000000000000000000000000000000000000000000000000000000040c10f19',
      textSignature: 'mint(address,uint256)',
      signatureType: 'function',
    },
  ],
  count: 14,
};

export const CLAIMABLE_SIGNATURES_EXAMPLE: ClaimableSignatureList = [
  {
    campaignId: '8453:0x378632819f39c74c4f56b1429e760739c5fb51b7:1247',
    signature: '0x9f1c3b7e0a4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f81b',
    claimant: '0x5eed00000000000000000000000000000000c0de',
    incentiveId: 0,
    referrer: '0x0000000000000000000000000000000000000000',
  },
];

const contract = {
  ID: `eth:${BASE}:${MINTER}`,
  contract_name: 'Zora Minter',
  address: MINTER,
  deployment_information: { address: MINTER, network_id: String(BASE) },
};

export const TEMPLATE_EXAMPLE: TemplateItem = {
  actionTemplate: {
    id: '84395e66-abc2-4c9b-94aa-9796d8a0dad2',
    actionType: 'mint',
    projectId: 'zora',
    description: 'Mint on Zora',
    title: 'Mint on Zora',
    campaignConfig: {
      selectedContract: contract,
      selectedSignatureHash: '0x0000000000000000000000000000000000000000000000000000000040c10f19',
      selectedSignature: 'mint(address,uint256)',
      parameterFilters: [{ id: 'f3a0c6f4-8c1e-4d1a-9a55-0d6b1f0f7e21', parameter: 'arg1:1', comparator: '>', value: '0' }],
      logFilters: [],
      claimantContract: contract,
      claimantSignature: 'mint(address,uint256)',
      claimantParameterMapping: 'arg0:0',
      reward: { type: 'fixed', budget: '1000', amount: '5', rebatePercentage: 0 },
      distributionChannel: ['public'],
    },
    nameConfig: {
      template: 'Mint on Zora {{index}}',
      campaignNameGenerator: 'mint-v1',
      abiFilters: [{ signature: '0x0000000000000000000000000000000000000000000000000000000040c10f19', inputArgIndexes: [0] }],
    },
    isActive: true,
    urlTemplate: 'https://zora.co/mint/{{contract}}',
    allowlist: [],
    distributionChannel: ['public', 'farcaster'],
    verificationLevel: 'verified',
    builderMetadata: {
      createdAt: '2026-09-14T08:30:00.000Z',
      actionChain: BASE,
      budgetAccount: { chainId: BASE, address: BUDGET },
      projectUrl: 'https://zora.co',
    },
    status: 'approved',
    category: 'nft',
  },
  project: { id: 'zora', url: 'https://zora.co', icon: 'https://assets.example.com/projects/zora.png' },
};

export const BUDGET_ACCOUNT_EXAMPLE: BudgetAccount = {
  id: `${BASE}:${BUDGET}`,
  identifier: BUDGET,
  registryType: 'BUDGET',
  baseImplementation: '0x6f5a1e1ea3d6d4bd07df5c5fba2b3d1c43f2e5b1',
  deployedInstance: BUDGET,
  txHash: '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060',
  blockTimestamp: '1726302600',
  blockNumber: '19829211',
  chainId: BASE,
  name: 'Growth budget',
  address: BUDGET,
  owner: OWNER,
  ownerEmail: null,
  hidden: false,
  label: 'Growth',
  members: [
    { memberAddress: OWNER, roles: [1, 2], email: null, status: 'wallet_created' },
    { memberAddress: '0x5eed00000000000000000000000000000000c0de', roles: [1], email: null, status: 'accepted' },
  ],
  deprecated: false,
};

const { ownerEmail: _ownerEmail, ...listed } = BUDGET_ACCOUNT_EXAMPLE;
export const BUDGET_ACCOUNT_LIST_EXAMPLE: BudgetAccountList = [listed];
