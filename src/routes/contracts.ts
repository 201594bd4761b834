import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { badRequest } from '../errors.js';
import { MAX_CHAIN_ID, pageRequest } from '../schemas/common.js';
import { CONTRACT_LIST_EXAMPLE } from '../schemas/activity-examples.js';
import { ContractList, ContractsQuery } from '../schemas/contracts.js';
import { ref } from '../schemas/typebox.js';
import { exploreContracts, type ExploreContractsRequest } from '../services/explore-contracts.js';
import { PUBLIC_ERROR_RESPONSES } from './error-responses.js';

/** GET /explore/contracts: the named contracts campaigns target, with their claim activity. */
export const contractRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/explore/contracts',
    {
      schema: {
        operationId: 'exploreContracts',
        tags: ['activity'],
        summary: 'Explore contracts',
        description:
          "Named contracts of the service's registry that some campaign's action steps target, with the number of " +
          'those campaigns and their claims in `timePeriod` (default `7d`), sorted by `sortBy`, ties on chain id then address.',
        querystring: ContractsQuery,
        response: {
          200: { ...ref(ContractList), description: 'One page of contracts', examples: [CONTRACT_LIST_EXAMPLE] },
          ...PUBLIC_ERROR_RESPONSES,
        },
      },
      config: { publicCache: true },
    },
    async (request) => {
      const { query } = request;
      return exploreContracts(app.claimWindows, app.repositories.contracts, exploreRequest(query, app.clock()));
    },
  );
};

/** The explore query (GET /explore/contracts and GET /explore share it) as the explore services take it. */
export function exploreRequest(
  query: Partial<Pick<ExploreContractsRequest, 'sortBy' | 'timePeriod'>> & { actionChainIds?: string[]; userAddress?: string; page?: number; pageSize?: number },
  now: Date,
): ExploreContractsRequest {
  return {
    sortBy: query.sortBy ?? 'most-completions',
    timePeriod: query.timePeriod ?? '7d',
    chainIds: query.actionChainIds?.map((chain, index) => {
      const chainId = Number(chain);
      if (chainId > MAX_CHAIN_ID) throw badRequest(`actionChainIds entry ${index + 1} must be <= ${MAX_CHAIN_ID}`);
      return chainId;
    }),
    creator: query.userAddress?.toLowerCase(),
    page: pageRequest(query),
    now,
  };
}
