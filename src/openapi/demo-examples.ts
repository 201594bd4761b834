import { DEMO_USER_ADDRESS } from '../seed/reference.js';

/**
 * Values from the demo data set (the seed is fixed, so they are the same on every zero-setup start):
 * a required parameter of the docs page's "Try it out" carries one of these, and the first click
 * answers with data. test/openapi/demo-examples.test.ts checks each against the demo data.
 */
export const DEMO_EXAMPLES = {
  /** The demo's busiest campaign: claims in both trending windows, and activity to page through. */
  campaignId: '8453:0xa306be414ad145dde6cb6c5ca881ea9e9536d5cd:6719007096174941471731208749508207559057663652057890153143857305003197410356',
  /** The demo user: rewards, a claimable signature, a budget account, access lists. */
  userAddress: DEMO_USER_ADDRESS,
  budgetAccountId: '1:0x7c6cd6033e97c4680a4471a84b1fb96e389c7c88',
  actionTemplateId: '11eacd45-6227-4495-bb94-bc5e63d32186',
  /** A token the demo operator blocked as a scam. */
  blockedToken: { chainId: 8453, address: '0x452b18b20c64201ac52db030f1eedb66c9b2f01c' },
} as const;

/** The example of each required parameter, by operation and parameter name. */
export const REQUIRED_PARAMETER_EXAMPLES: Record<string, Record<string, unknown>> = {
  getCampaign: { id: DEMO_EXAMPLES.campaignId },
  getCampaignActivity: { id: DEMO_EXAMPLES.campaignId },
  getCampaignHistory: { id: DEMO_EXAMPLES.campaignId },
  getCampaignLeaderboard: { id: DEMO_EXAMPLES.campaignId },
  getRewardKitReward: { id: DEMO_EXAMPLES.campaignId },
  getRewardKit: { claimantAddress: DEMO_EXAMPLES.userAddress },
  getClaimableSignatures: { address: DEMO_EXAMPLES.userAddress },
  getBlocklist: { chainId: String(DEMO_EXAMPLES.blockedToken.chainId), tokenAddress: DEMO_EXAMPLES.blockedToken.address },
  getActionTemplate: { id: DEMO_EXAMPLES.actionTemplateId },
  getBudgetAccount: { id: DEMO_EXAMPLES.budgetAccountId },
};
