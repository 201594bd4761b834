import type { ScenarioParameters } from './dataset.js';

/** One kind of request the benchmark drives: fixed paths, or a path drawn per request. */
export interface Scenario {
  name: string;
  /** The path of each request; called per request when the scenario varies (random ids). */
  path: () => string;
  headers?: Record<string, string>;
}

/** The suffix of the scenarios measured a second time with compression (bench/README.md). */
export const COMPRESSED = ' compressed';

/** What current browsers send; the service answers it with brotli (it offers no zstd). */
const BROWSER_ACCEPT_ENCODING = 'gzip, deflate, br, zstd';

/**
 * The scenarios measured again with `Accept-Encoding`, each right after its uncompressed self, so that
 * the pair's ratio shows what compression costs rather than the machine's drift between them.
 */
const MEASURED_COMPRESSED = new Set(['list default', 'list pageSize=100', 'detail by random id', 'trending 24h']);

export function scenarios(parameters: ScenarioParameters): Scenario[] {
  return withCompressed(uncompressed(parameters));
}

function withCompressed(list: Scenario[]): Scenario[] {
  return list.flatMap((scenario) =>
    MEASURED_COMPRESSED.has(scenario.name)
      ? [scenario, { ...scenario, name: scenario.name + COMPRESSED, headers: { ...scenario.headers, 'accept-encoding': BROWSER_ACCEPT_ENCODING } }]
      : [scenario],
  );
}

function uncompressed(parameters: ScenarioParameters): Scenario[] {
  const fixed = (name: string, path: string, headers?: Record<string, string>): Scenario => ({ name, path: () => path, headers });
  let next = 0;
  const { campaignIds } = parameters;
  return [
    fixed('list default', '/campaigns'),
    fixed('list pageSize=100', '/campaigns?pageSize=100'),
    fixed('list by owner', `/campaigns?owner=${parameters.owner}`),
    fixed('list by tokens', `/campaigns?tokens=${parameters.token}`),
    fixed(
      'list by targetContract',
      `/campaigns?targetContract=${parameters.targetContract.address}&chainId=${parameters.targetContract.chainId}`,
    ),
    fixed('list page 1000', '/campaigns?page=1000'),
    {
      name: 'detail by random id',
      // Round-robin over a sample of real ids, so that no single row stays hot in any cache.
      path: () => `/campaigns/${campaignIds[next++ % campaignIds.length]}`,
    },
    fixed('trending 1h', '/reward-kit/trending?sortBy=1h'),
    fixed('trending 1h claimant', `/reward-kit/trending?sortBy=1h&claimantAddress=${parameters.claimant}`),
    fixed('trending 24h', '/reward-kit/trending?sortBy=24h'),
    fixed('trending 24h claimant', `/reward-kit/trending?sortBy=24h&claimantAddress=${parameters.claimant}`),
    fixed('contracts most-completions', '/explore/contracts?sortBy=most-completions'),
    fixed('contracts total-spend', '/explore/contracts?sortBy=total-spend'),
    fixed('contracts recently-deployed', '/explore/contracts?sortBy=recently-deployed'),
    fixed('profile', '/users/profile', { authorization: `Bearer ${parameters.bearerToken}` }),
    // The public API's claim-data operations (docs/public-api.md), measured beside trending 24h.
    fixed('reward-kit campaigns', '/reward-kit/campaigns'),
    fixed('reward-kit profile', `/reward-kit?claimantAddress=${parameters.claimant}`),
    {
      name: 'activity by random id',
      path: () => `/campaigns/${campaignIds[next++ % campaignIds.length]}/activity`,
    },
    // The busiest campaign's feed: its first page, and one deep page (20,000, or its last) by offset and by cursor.
    fixed('activity page 1', `/campaigns/${parameters.busiest.id}/activity`),
    fixed('activity deep page', `/campaigns/${parameters.busiest.id}/activity?page=${parameters.busiest.deepPage}`),
    fixed('activity deep page by cursor', `/campaigns/${parameters.busiest.id}/activity?cursor=${parameters.busiest.deepCursor}`),
    // Its last 30 days by hour (720 buckets), ending at the hour of the run.
    fixed('history 30d by hour', `/campaigns/${parameters.busiest.id}/history?interval=hour&from=${new Date(Date.now() - 30 * 86_400_000).toISOString()}`),
    // The leaderboard of every campaign's claims of the last 7 days.
    fixed('leaderboard 7d', '/leaderboard?window=7d'),
  ];
}
