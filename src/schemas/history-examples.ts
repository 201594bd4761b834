import type { CampaignHistory } from './history.js';

const USDC = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913';

/** Two days of a campaign paying 1 USDC a claim, as GET /campaigns/{id}/history answers. */
export const HISTORY_EXAMPLE: CampaignHistory = {
  campaignId: '8453:0x378632819f39c74c4f56b1429e760739c5fb51b7:1',
  interval: 'day',
  from: '2026-11-26T00:00:00.000Z',
  to: '2026-11-28T00:00:00.000Z',
  tokens: [{ token: USDC, symbol: 'USDC', decimals: 6 }],
  buckets: [
    {
      start: '2026-11-26T00:00:00.000Z',
      claims: 12,
      claimants: 11,
      newClaimants: 9,
      paid: [{ token: USDC, amount: '12000000', usd: 12 }],
      budgetLeft: [{ token: USDC, amount: '488000000' }],
    },
    {
      start: '2026-11-27T00:00:00.000Z',
      claims: 0,
      claimants: 0,
      newClaimants: 0,
      paid: [{ token: USDC, amount: '0', usd: 0 }],
      budgetLeft: [{ token: USDC, amount: '488000000' }],
    },
  ],
  projection: {
    exhaustsAt: '2027-04-08T10:00:00.000Z',
    tokens: [{ token: USDC, left: '488000000', paidPerDay: '3428571', exhaustsAt: '2027-04-08T10:00:00.000Z' }],
  },
};
