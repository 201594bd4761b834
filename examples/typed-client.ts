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

/** One call of each operation, keyed by operationId; each answer is typed by its path. */
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
  const listAccessLists = await staging.GET('/campaigns/accesslists', { params: { query: { order: 'ASC', pageSize: 10 } } });
  const getUserProfile = await staging.GET('/users/profile');

  // The answers' types: a typo in a field name here fails to compile.
  const summary = {
    campaigns: listCampaigns.data?.totalCampaigns,
    campaign: getCampaign.data?.id,
    trending: listTrendingCampaigns.data?.trendingCampaigns.length,
    contracts: exploreContracts.data?.length,
    accessLists: listAccessLists.data?.totalAccesslists,
    score: getUserProfile.data?.score,
  };
  const calls = { listCampaigns, getCampaign, listTrendingCampaigns, exploreContracts, listAccessLists, getUserProfile };
  return { calls, summary };
}
