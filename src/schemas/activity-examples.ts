import { USDC, USDC_METADATA_EXAMPLE } from './campaign-examples.js';
import type { ContractList } from './contracts.js';
import type { TrendingList } from './trending.js';

/** Example answers of the activity operations for the API document; a contract test validates them. */


export const TRENDING_LIST_EXAMPLE: TrendingList = {
  trendingCampaigns: [
    {
      id: '8453:0x378632819f39c74c4f56b1429e760739c5fb51b7:1247',
      chainId: 8453,
      incentives: [
        {
          type: 'ERC20Incentive',
          assetAddress: USDC,
          rewardAmount: '2500000',
          rewardAmountFormatted: '2.5',
          maxReward: '2500000',
          maxRewardUsdValue: 2.5,
          rewardUsdValue: 2.5,
          tokenSymbol: 'USDC',
          tokenImageUri: 'https://assets.example.com/tokens/usdc.png',
          metadata: USDC_METADATA_EXAMPLE,
        },
      ],
      actionTemplate: {
        id: '84395e66-abc2-4c9b-94aa-9796d8a0dad2',
        projectId: 'aerodrome',
        actionType: 'swap',
        projectImage: 'https://assets.example.com/projects/aerodrome.png',
        description: 'Swap on Aerodrome',
        category: 'defi',
      },
      status: 'claimable',
      txHash: '0x7cd2e155eca6dd1206d7172eeed4a12c2e9e2d353ef4584e1df44041f44c5265',
      campaignName: 'Swap on Aerodrome',
      tokenImageUri: 'https://assets.example.com/tokens/usdc.png',
      blockTimestamp: '1779321600',
      projectUrl: 'https://aerodrome.example.org',
      startTime: '2026-05-21T00:00:00.000Z',
      endTime: null,
      claimCount: 124,
      totalBudget: '2500000000',
      rewardsDistributed: '310000000',
      signature: {
        claimant: '0x5eed00000000000000000000000000000000c0de',
        incentiveId: 0,
        signature: '0x1c1f5e3c',
        referrer: '0x0000000000000000000000000000000000000000',
      },
      accessStatus: 'allowed',
      verificationLevel: 'verified',
      usdDistributed24Hr: 57.5,
      usdDistributed1Hr: 5,
    },
  ],
};

export const CONTRACT_LIST_EXAMPLE: ContractList = [
  {
    chainId: 8453,
    address: '0xb33ec033526c24fdb6d5b3c7cf8a20ddf790a7b2',
    name: 'Aerodrome Router',
    stats: { campaignCount: 42, totalClaims: 1830, totalAmountClaimedUsd: 9120.25 },
  },
];
