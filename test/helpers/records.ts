import { address, minimalCampaignConfig } from './factories.js';

/**
 * A small, valid set of import records, one of each kind, that refer to each other: the
 * starting point of the import tests. `lines()` turns records into NDJSON.
 */
export const CHAIN = 8453;
export const CORE = address(0xc0000);
export const CAMPAIGN_ID = `${CHAIN}:${CORE}:1`;
const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
export const hash = (byte: string) => `0x${byte.repeat(32)}`;

export function campaignRecord(identifier: string, overrides: Record<string, unknown> = {}) {
  return {
    kind: 'campaign',
    chainId: CHAIN,
    coreAddress: CORE,
    identifier,
    campaignIndex: identifier,
    owner: address(0xa0001),
    creator: address(0xa0001),
    budget: address(0xb0001),
    validator: address(0xd0000),
    action: address(0xe0001),
    protocolFee: '0',
    maxParticipants: '1000',
    blockTimestamp: 1_763_000_000 + Number(identifier),
    blockNumber: 30_000_000,
    txHash: hash('c1'),
    startTime: null,
    endTime: '2030-01-01T00:00:00.000Z',
    distributionChannels: ['web'],
    autocampaignId: null,
    templateId: null,
    actionTemplateId: uuid(0xa1),
    allowList: { chainId: CHAIN, contractAddress: address(0x40001) },
    campaignName: `Campaign ${identifier}`,
    nftImageUri: null,
    nftName: null,
    nftMetadataId: null,
    projectImageUri: null,
    tokenImageUri: null,
    actionTokenAddress: null,
    actionClaimant: {
      signature: '0xa9059cbb',
      signatureName: 'transfer(address,uint256)',
      signatureType: 'function',
      fieldIndex: 0,
      targetContract: address(0x30001),
      chainId: CHAIN,
    },
    incentives: [
      { type: 'ERC20Incentive', params: { asset: address(0x70001), strategy: 0, reward: '1000', limit: '10' } },
      { type: 'PointsIncentive', params: { venue: address(0x70002), selector: '0x12345678', reward: '5', limit: '100' } },
    ],
    steps: [
      {
        chainId: CHAIN,
        targetContract: address(0x30001),
        claimant: null,
        signature: '0xa9059cbb',
        signatureName: 'transfer(address,uint256)',
        signatureType: 'function',
        actionType: 0,
        parameters: { filterType: 0, fieldType: 0, fieldIndex: 0, filterData: '0x' },
      },
    ],
    ...overrides,
  };
}

export function claimRecord(logIndex: number, overrides: Record<string, unknown> = {}) {
  return {
    kind: 'claim',
    chainId: CHAIN,
    txHash: hash('11'),
    logIndex,
    campaign: CAMPAIGN_ID,
    incentivePosition: 0,
    claimant: address(0x10001),
    amount: '1000',
    usdValue: '0.001000',
    ethValueWei: '1',
    claimedAt: '2026-11-20T10:00:00.000Z',
    ...overrides,
  };
}

export function baseRecords(): Record<string, unknown>[] {
  return [
    {
      kind: 'token',
      chainId: CHAIN,
      address: address(0x70001),
      id: uuid(0x70001),
      name: 'USD Coin',
      symbol: 'USDC',
      decimals: 6,
      imageUri: 'https://assets.example.com/usdc.png',
      isWhitelisted: true,
      priceUsd: '1',
    },
    { kind: 'project', id: uuid(0xb1), name: 'Zora', imageUri: 'https://assets.example.com/zora.png', url: 'https://zora.co', verificationLevel: 'verified' },
    {
      kind: 'actionTemplate',
      id: uuid(0xa1),
      projectId: uuid(0xb1),
      actionType: 'mint',
      description: 'Mint on Zora',
      category: 'nft',
      title: 'Mint on Zora',
      campaignConfig: minimalCampaignConfig(CHAIN, address(0x30001)),
      nameConfig: { template: 'Mint {{index}}', campaignNameGenerator: 'mint-v1', abiFilters: [] },
      distributionChannels: ['public'],
      builderMetadata: {
        createdAt: '2026-01-31T12:00:00.000Z',
        actionChain: CHAIN,
        budgetAccount: { chainId: CHAIN, address: address(0xb0001) },
      },
      status: 'approved',
    },
    { kind: 'contract', chainId: CHAIN, address: address(0x30001), name: 'Zora minter' },
    {
      kind: 'knownSignature',
      id: '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
      textSignature: 'Transfer(address,address,uint256)',
      abiItem: { type: 'event', name: 'Transfer', inputs: [], anonymous: false },
      signatureType: 'event',
    },
    {
      kind: 'budgetAccount',
      chainId: CHAIN,
      address: address(0xb0001),
      registryType: 'BUDGET',
      baseImplementation: address(0xba5e),
      deployedInstance: address(0xb0001),
      txHash: hash('b1'),
      blockTimestamp: 1_762_000_000,
      blockNumber: 29_000_000,
      name: 'Growth budget',
      owner: address(0xa0001),
      ownerEmail: 'owner@example.com',
      label: null,
      members: [
        { address: address(0xa0001), roles: [1, 2], status: 'wallet_created' },
        { address: address(0x10001), roles: [1], email: 'member@example.com', status: 'invited' },
      ],
    },
    { kind: 'user', address: address(0x10001), id: uuid(0x10001), score: 5 },
    {
      kind: 'accessList',
      id: uuid(0xaa),
      owner: address(0x10001),
      name: 'Friends',
      icon: 'https://assets.example.com/star.svg',
      createdAt: '2026-01-01T00:00:00.000Z',
      members: [address(1), address(2)],
    },
    {
      kind: 'allowList',
      chainId: CHAIN,
      contractAddress: address(0x40001),
      owner: address(0x50001),
      type: 'SimpleAllowList',
      accessListId: null,
      addresses: [address(3), address(4)],
    },
    campaignRecord('1'),
    {
      kind: 'claimSignature',
      campaign: CAMPAIGN_ID,
      signature: `0x${'ab'.repeat(65)}`,
      claimant: address(0x10001),
      incentiveId: 0,
      referrer: address(0),
      used: false,
    },
    claimRecord(0),
    claimRecord(1, { claimant: address(0x10002), amount: '2000', usdValue: '0.002000' }),
  ];
}

export const lines = (records: unknown[]) => records.map((record) => `${JSON.stringify(record)}\n`).join('');
