/**
 * A typed client for every operation of the campaign service, from the API document alone:
 *
 *   npx openapi-typescript openapi.json -o examples/api.d.ts   # or http://127.0.0.1:3000/openapi.json
 *
 * then openapi-fetch types each call's path, parameters and answer. `test/client/typed-client.test.ts`
 * generates api.d.ts from the committed openapi.json, type-checks this file (and the README's recipe)
 * against it, and runs it against a live server.
 */
import createClient from 'openapi-fetch';
import type { paths } from './api.js';

export interface ClientOptions {
  /** The document's server: the public operations. */
  baseUrl: string;
  /** The staging operations' own server (their `servers` in the document); may equal baseUrl. */
  stagingUrl: string;
  /** A bearer token for the staging operations (`npm run token`, or the one `npm start` prints). */
  token: string;
}

/** List parameters are comma-separated (`tokens=a,b`), as the document's `explode: false` says. */
const querySerializer = { array: { style: 'form', explode: false } } as const;

export function createCampaignClients({ baseUrl, stagingUrl, token }: ClientOptions) {
  return {
    api: createClient<paths>({ baseUrl, querySerializer }),
    staging: createClient<paths>({ baseUrl: stagingUrl, querySerializer, headers: { Authorization: `Bearer ${token}` } }),
  };
}

/** The cursor that the `Link: <?cursor=…>; rel="next"` header of an answer names, or undefined after the last page. */
function linkedCursor(response: Response): string | undefined {
  const next = /<\?([^>]*)>; rel="next"/.exec(response.headers.get('link') ?? '');
  return next ? (new URLSearchParams(next[1]).get('cursor') ?? undefined) : undefined;
}

/**
 * Every claim of a campaign, newest first, each exactly once however many claims arrive during the
 * walk: each answer with claims after it links the next page (`Link: <?cursor=…>; rel="next"`), and a
 * page asked for by cursor is as fast at claim 200,000 as at the first.
 */
export async function* walkCampaignActivity(options: ClientOptions, id: string, pageSize = 100) {
  const { api } = createCampaignClients(options);
  let cursor: string | undefined;
  do {
    const { data, error, response } = await api.GET('/campaigns/{id}/activity', { params: { path: { id }, query: { pageSize, cursor } } });
    if (!data) throw new Error(`GET /campaigns/${id}/activity: ${JSON.stringify(error)}`);
    yield* data.activityEvents;
    cursor = linkedCursor(response);
  } while (cursor !== undefined);
}

type CampaignFilters = Omit<NonNullable<paths['/campaigns']['get']['parameters']['query']>, 'page' | 'pageSize' | 'cursor' | 'includeTotal'>;

/**
 * Every campaign of a list (`filters`, `sortBy`) in its order, each that exists throughout exactly
 * once however many campaigns are created or removed during the walk, by the same Link header. The
 * walk keeps the instant of its first page: which campaigns are active is judged then.
 */
export async function* walkCampaigns(options: ClientOptions, filters: CampaignFilters = {}, pageSize = 100) {
  const { api } = createCampaignClients(options);
  let cursor: string | undefined;
  do {
    // The cursor goes with the same filters: another list's cursor is a 400.
    const { data, error, response } = await api.GET('/campaigns', { params: { query: { ...filters, pageSize, cursor } } });
    if (!data) throw new Error(`GET /campaigns: ${JSON.stringify(error)}`);
    yield* data.campaigns;
    cursor = linkedCursor(response);
  } while (cursor !== undefined);
}

/**
 * The claim signatures a transaction earns, or why it earns none: `code` is stable
 * (`not_final`: ask again after Retry-After seconds; `already_claimed`, `not_allowed`, …). Each
 * signature is the `data` of `BoostCore.claimIncentive(boostId, incentiveId, referrer, data)`.
 */
export async function signaturesFor(options: ClientOptions, campaignId: string, txHash: string) {
  const { api } = createCampaignClients(options);
  const { data, error, response } = await api.GET('/signatures', { params: { query: { campaignId, txHash } } });
  if (data) return { signatures: data };
  const refusal = error && typeof error.error === 'object' ? error.error : undefined;
  return { status: response.status, code: refusal?.code, message: refusal?.message ?? JSON.stringify(error) };
}

/** One call of each operation but GET /signatures (it needs a transaction on a chain), keyed by operationId; each answer is typed by its path. */
export async function callEveryOperation(options: ClientOptions) {
  const { api, staging } = createCampaignClients(options);

  const listCampaigns = await api.GET('/campaigns', {
    params: { query: { pageSize: 5, tokenWhitelist: false, sortBy: 'recently-deployed', chainId: 8453 } },
  });
  const firstId = listCampaigns.data?.campaigns[0]?.id ?? '1:0x0000000000000000000000000000000000000001:1';
  const getCampaign = await api.GET('/campaigns/{id}', { params: { path: { id: firstId } } });
  const listTrendingCampaigns = await api.GET('/reward-kit/trending', {
    params: { query: { sortBy: '1h', tokenWhitelist: false, actionType: ['swap', 'bridge'] } },
  });
  const exploreContracts = await api.GET('/explore/contracts', {
    params: { query: { sortBy: 'most-completions', timePeriod: '24h', actionChainIds: ['1', '8453'] } },
  });
  const getKnownSignatures = await api.GET('/known-signatures', { params: { query: { pageSize: 20 } } });
  const getClaimableSignatures = await api.GET('/signatures/claimable/{address}', {
    params: { path: { address: '0x5eed00000000000000000000000000000000c0de' } },
  });
  const getBlocklist = await api.GET('/blocklist/{chainId}/{tokenAddress}', {
    params: { path: { chainId: '8453', tokenAddress: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913' } },
  });
  const getActionTemplates = await api.GET('/action-templates', { params: { query: { onlyActive: false, status: ['approved'] } } });
  const templateId = getActionTemplates.data?.[0]?.actionTemplate.id ?? '00000000-0000-4000-8000-000000000000';
  const getActionTemplate = await api.GET('/action-templates/{id}', { params: { path: { id: templateId } } });
  const getBudgetAccounts = await api.GET('/budget-accounts', { params: { query: { chainId: 8453, pageSize: 5 } } });
  const accountId = getBudgetAccounts.data?.[0]?.id ?? '8453:0x0000000000000000000000000000000000000001';
  const getBudgetAccount = await api.GET('/budget-accounts/{id}', { params: { path: { id: accountId } } });
  const getRewardKitRewards = await api.GET('/reward-kit/campaigns', { params: { query: { sortBy: 'recently-deployed', pageSize: 5 } } });
  const claimantAddress = '0x5eed00000000000000000000000000000000c0de';
  const getRewardKit = await api.GET('/reward-kit', { params: { query: { claimantAddress, tokenWhitelist: false } } });
  const getRewardKitReward = await api.GET('/reward-kit/campaigns/{id}', {
    params: { path: { id: firstId }, query: { address: claimantAddress } },
  });
  const exploreCampaigns = await api.GET('/explore', { params: { query: { sortBy: 'total-spend', timePeriod: '7d' } } });
  const getCampaignActivity = await api.GET('/campaigns/{id}/activity', { params: { path: { id: firstId }, query: { pageSize: 20 } } });
  const getCampaignHistory = await api.GET('/campaigns/{id}/history', { params: { path: { id: firstId }, query: { interval: 'hour' } } });
  const getCampaignLeaderboard = await api.GET('/campaigns/{id}/leaderboard', {
    params: { path: { id: firstId }, query: { window: '7d', by: 'usd', address: claimantAddress } },
  });
  const getLeaderboard = await api.GET('/leaderboard', { params: { query: { window: '24h', by: 'claims', includeTotal: true } } });
  const listAccessLists = await staging.GET('/campaigns/accesslists', { params: { query: { order: 'ASC', pageSize: 10 } } });
  const getUserProfile = await staging.GET('/users/profile');
  let walked = 0;
  for await (const claim of walkCampaignActivity(options, firstId, 2)) if (claim.txHash) walked += 1;
  const walkedCampaigns: string[] = [];
  for await (const campaign of walkCampaigns(options, { tokenWhitelist: false, sortBy: 'active' }, 1)) walkedCampaigns.push(campaign.id);

  // The answers' types: a typo in a field name here fails to compile.
  const summary = {
    campaigns: listCampaigns.data?.totalCampaigns,
    campaign: getCampaign.data?.id,
    trending: listTrendingCampaigns.data?.trendingCampaigns.length,
    contracts: exploreContracts.data?.length,
    accessLists: listAccessLists.data?.totalAccesslists,
    score: getUserProfile.data?.score,
    signatures: getKnownSignatures.data?.count,
    claimable: getClaimableSignatures.data?.length,
    blocked: getBlocklist.data?.isBlocked,
    template: getActionTemplate.data?.project.id,
    budgetAccount: getBudgetAccount.data?.owner,
    rewards: getRewardKitRewards.data?.campaigns.length,
    claimedUsd: getRewardKit.data?.totalClaimedAmountUsd,
    rewardClaims: getRewardKitReward.data?.totalClaims,
    explored: exploreCampaigns.data?.totalCount,
    activity: getCampaignActivity.data?.totalActivityCount,
    walked,
    walkedCampaigns: walkedCampaigns.length,
    runsOutAt: getCampaignHistory.data?.projection.exhaustsAt,
    myRank: getCampaignLeaderboard.data?.addressEntry?.rank,
    leaders: getLeaderboard.data?.totalCount,
  };
  const calls = {
    listCampaigns,
    getCampaign,
    listTrendingCampaigns,
    exploreContracts,
    listAccessLists,
    getUserProfile,
    getKnownSignatures,
    getClaimableSignatures,
    getBlocklist,
    getActionTemplates,
    getActionTemplate,
    getBudgetAccounts,
    getBudgetAccount,
    getRewardKitRewards,
    getRewardKit,
    getRewardKitReward,
    exploreCampaigns,
    getCampaignActivity,
    getCampaignHistory,
    getCampaignLeaderboard,
    getLeaderboard,
  };
  return { calls, summary };
}
