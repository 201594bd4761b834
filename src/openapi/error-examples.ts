import { DEMO_EXAMPLES } from './demo-examples.js';

/**
 * One example per error status of each operation, so the docs page shows what each status really
 * says rather than one message under every status. A 400 or 404 example is the answer to the request
 * beside it (test/openapi/error-examples.test.ts sends each one); the other statuses say the same on
 * every operation, and the test checks those against the code that answers them.
 */
export interface RequestExample {
  /** A request that draws this error (a staging operation's carries a valid token). */
  request: string;
  error: string;
}

const UNKNOWN_CAMPAIGN = '8453:0x0000000000000000000000000000000000000001:1';

export const BAD_REQUEST_EXAMPLES: Record<string, RequestExample> = {
  listCampaigns: { request: '/campaigns?pageSize=101', error: 'pageSize must be <= 100' },
  getCampaign: {
    request: '/campaigns/not-an-id',
    error: 'id must be a campaign ID of the form <chain_id>:<campaign_core_address>:<identifier>',
  },
  listTrendingCampaigns: { request: '/reward-kit/trending?sortBy=2h', error: 'sortBy must be one of: 1h, 24h' },
  exploreContracts: { request: '/explore/contracts?timePeriod=2d', error: 'timePeriod must be one of: 6h, 24h, 7d' },
  getKnownSignatures: { request: '/known-signatures?page=0x1', error: 'page must be an integer written in decimal digits' },
  getClaimableSignatures: {
    request: '/signatures/claimable/0x123',
    error: 'address must be an address: 0x followed by 40 hexadecimal characters',
  },
  getBlocklist: {
    request: `/blocklist/base/${DEMO_EXAMPLES.blockedToken.address}`,
    error: 'chainId must be a chain id: decimal digits',
  },
  getActionTemplates: {
    request: '/action-templates?status=live',
    error: 'status entry 1 must be one of: pending, approved, rejected, duplicated',
  },
  getActionTemplate: { request: '/action-templates/not-a-uuid', error: 'id must be a UUID' },
  getBudgetAccounts: {
    request: '/budget-accounts?member=alice',
    error: 'member must be an address: 0x followed by 40 hexadecimal characters',
  },
  getBudgetAccount: { request: '/budget-accounts/8453', error: 'id must be <chain_id>:<address>' },
  getRewardKitRewards: { request: '/reward-kit/campaigns?status=done', error: 'status must be one of: active, claimable, claimed' },
  getRewardKit: { request: '/reward-kit', error: 'claimantAddress is required' },
  getRewardKitReward: {
    request: '/reward-kit/campaigns/8453:0x1:1',
    error: 'id must be a campaign ID of the form <chain_id>:<campaign_core_address>:<identifier>',
  },
  exploreCampaigns: {
    request: '/explore?sortBy=newest',
    error: 'sortBy must be one of: most-completions, total-spend, recently-deployed',
  },
  getCampaignActivity: {
    request: `/campaigns/${DEMO_EXAMPLES.campaignId}/activity?claimant=bob`,
    error: 'claimant must be an address: 0x followed by 40 hexadecimal characters',
  },
  getCampaignHistory: { request: `/campaigns/${DEMO_EXAMPLES.campaignId}/history?interval=week`, error: 'interval must be one of: hour, day' },
  getCampaignLeaderboard: { request: `/campaigns/${DEMO_EXAMPLES.campaignId}/leaderboard?window=1y`, error: 'window must be one of: 24h, 7d, 30d, all' },
  getLeaderboard: { request: '/leaderboard?by=volume', error: 'by must be one of: usd, claims' },
  listAccessLists: { request: '/campaigns/accesslists?order=UP', error: 'order must be one of: ASC, DESC' },
  getUserProfile: { request: '/users/profile?verbose=1', error: "unknown query parameter 'verbose'" },
  streamEvents: { request: '/events?type=claim.made', error: 'type entry 1 must be one of: claim.written, claim.removed, draw.written, draw.removed, campaign.created, campaign.changed, campaign.removed, trending.changed, signature.issued' },
  getSignatures: {
    request: `/signatures?campaignId=${DEMO_EXAMPLES.campaignId}&txHash=0x12`,
    error: 'txHash must be a transaction hash: 0x followed by 64 hexadecimal characters',
  },
};

/** Where an operation's own refusal differs from the status's usual message. */
const OPERATION_STATUS_EXAMPLES: Record<string, Record<string, string>> = {
  streamEvents: { 429: 'this client IP has 20 event streams open already, the most allowed' },
  getSignatures: {
    410: `campaign ${UNKNOWN_CAMPAIGN} is not active`,
    429: 'rate limit of GET /signatures exceeded: at most 60 requests per 60 s; retry in 42 seconds',
  },
};

export const NOT_FOUND_EXAMPLES: Record<string, RequestExample> = {
  getCampaign: { request: `/campaigns/${UNKNOWN_CAMPAIGN}`, error: `campaign ${UNKNOWN_CAMPAIGN} not found` },
  getCampaignActivity: { request: `/campaigns/${UNKNOWN_CAMPAIGN}/activity`, error: `campaign ${UNKNOWN_CAMPAIGN} not found` },
  getCampaignHistory: { request: `/campaigns/${UNKNOWN_CAMPAIGN}/history`, error: `campaign ${UNKNOWN_CAMPAIGN} not found` },
  getCampaignLeaderboard: { request: `/campaigns/${UNKNOWN_CAMPAIGN}/leaderboard`, error: `campaign ${UNKNOWN_CAMPAIGN} not found` },
  getRewardKitReward: { request: `/reward-kit/campaigns/${UNKNOWN_CAMPAIGN}`, error: `reward ${UNKNOWN_CAMPAIGN} not found` },
  getSignatures: { request: `/signatures?campaignId=${UNKNOWN_CAMPAIGN}&txHash=0x${'3f'.repeat(32)}`, error: `campaign ${UNKNOWN_CAMPAIGN} not found` },
  getActionTemplate: {
    request: '/action-templates/00000000-0000-4000-8000-000000000000',
    error: 'action template 00000000-0000-4000-8000-000000000000 not found',
  },
  getBudgetAccount: {
    request: '/budget-accounts/8453:0x0000000000000000000000000000000000000001',
    error: 'budget account 8453:0x0000000000000000000000000000000000000001 not found',
  },
};

/** The statuses whose message does not depend on the operation. */
export const STATUS_EXAMPLES: Record<string, string> = {
  401: 'missing bearer token: send the header Authorization: Bearer <token>',
  403: "userId must be your own user id: a token may only read its own user's access lists",
  429: 'rate limit exceeded: at most 600 requests per minute; retry in 42 seconds',
  500: 'internal server error',
  503: 'the database is temporarily unavailable; retry shortly',
  504: 'the request took too long to answer; narrow it down or retry',
};

/** The example body of `status` on `operationId`, when that status has one. */
export function errorExample(operationId: string, status: string): { error: string } | undefined {
  const error =
    OPERATION_STATUS_EXAMPLES[operationId]?.[status] ??
    (status === '400' ? BAD_REQUEST_EXAMPLES[operationId]?.error : status === '404' ? NOT_FOUND_EXAMPLES[operationId]?.error : STATUS_EXAMPLES[status]);
  return error === undefined ? undefined : { error };
}
