import type { CampaignDetail, CampaignList, CampaignListItem } from './campaigns.js';

/**
 * Example answers for the API document, shaped like real ones (the demo data set's). A contract
 * test validates each against its schema, so an example can never drift from the contract.
 */

const CAMPAIGN_ID = '8453:0x378632819f39c74c4f56b1429e760739c5fb51b7:1247';
const OWNER = '0xbe15185fff727606f2a52a11efb819b3ae180841';
const BUDGET = '0x907be675b81a82285b9849b02dbd8bfb9e944d90';
export const USDC = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913';

/** The token metadata every example that pays USDC on Base shows. */
export const USDC_METADATA_EXAMPLE = {
  id: '10975148-59a0-468f-9435-20c2a9aeee30',
  chainId: 8453,
  address: USDC,
  decimals: 6,
  name: 'USD Coin',
  symbol: 'USDC',
  imageUri: 'https://assets.example.com/tokens/usdc.png',
};
const TARGET = '0xb33ec033526c24fdb6d5b3c7cf8a20ddf790a7b2';

const incentives: CampaignListItem['incentives'] = [
  {
    type: 'ERC20Incentive',
    asset: USDC,
    strategy: 0,
    reward: '2500000',
    limit: '1000',
    claimedAmount: '310000000',
    totalClaims: '124',
    totalAmountClaimed: '310000000',
    metadata: USDC_METADATA_EXAMPLE,
    remainingBalance: '2190000000',
  },
];

const actionSteps: CampaignDetail['actionSteps'] = [
  {
    chainId: 8453,
    signature: '0x40c10f19',
    signatureName: 'mint(address,uint256)',
    signatureType: 'function',
    actionType: 0,
    targetContract: TARGET,
    parameters: { filterType: 0, fieldType: 1, fieldIndex: 0, filterData: '0x' },
  },
];

const presentation = {
  availableBudgetUsd: '2190.00',
  templateId: null,
  actionTemplateId: '4b6f0c1e-2f1d-4d8e-9a51-0c3f6a9e2b7d',
  nftImageUri: 'https://assets.example.com/nfts/base-day-one.png',
  nftName: 'Base Day One',
  campaignName: 'Mint Base Day One',
  projectImageUri: 'https://assets.example.com/projects/base.png',
  tokenImageUri: 'https://assets.example.com/tokens/usdc.png',
};

export const CAMPAIGN_LIST_ITEM_EXAMPLE: CampaignListItem = {
  id: CAMPAIGN_ID,
  action: '0x8ef165c18c5c53044e11e141732b246e48362c61',
  allowList: null,
  campaignIndex: '1247',
  budget: BUDGET,
  incentiveCount: '1',
  owner: OWNER,
  validator: '0x8ae23d43b7efb5a1be9a29ed18bf8f08bf5b00e4',
  blockTimestamp: '1768403140',
  txHash: '0x503d2bbfb7309eb2dc110dd7be74aa826b96b93723bf07849e1be4e7e0831aab',
  chainId: 8453,
  actionSteps,
  protocolFee: '0',
  maxParticipants: '1000',
  incentives,
  createdAtBlockTimestamp: '1768403140',
  createdAtChainBlockNumbers: { 8453: '40854650' },
  isActive: true,
  usdSpend: 310,
  tokenSpend: 310,
  ...presentation,
};

export const CAMPAIGN_LIST_EXAMPLE: CampaignList = { campaigns: [CAMPAIGN_LIST_ITEM_EXAMPLE], totalCampaigns: 288 };

export const CAMPAIGN_DETAIL_EXAMPLE: CampaignDetail = {
  id: CAMPAIGN_ID,
  actionSteps,
  allowList: { owner: OWNER, contractAddress: '0x0000000000000000000000000000000000000000', type: 'OpenAllowList', addresses: null },
  protocolFee: '0',
  maxParticipants: '1000',
  incentives,
  owner: OWNER,
  isActive: true,
  createdAt: '2026-01-14T15:05:40.000Z',
  budget: BUDGET,
  actionClaimant: {
    signature: '0x40c10f19',
    signatureName: 'mint(address,uint256)',
    signatureType: 'function',
    fieldIndex: 0,
    targetContractName: 'Base Day One',
    targetContract: TARGET,
    chainId: 8453,
  },
  createdAtBlockchainNumbers: { 8453: '40854650' },
  ...presentation,
  nftMetadataId: null,
  startTime: '2026-01-14T18:00:00.000Z',
  endTime: null,
};
