import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { pageRequest } from '../schemas/common.js';
import { TRENDING_LIST_EXAMPLE } from '../schemas/activity-examples.js';
import { TrendingList, TrendingQuery } from '../schemas/trending.js';
import { ref } from '../schemas/typebox.js';
import { listTrending } from '../services/trending.js';
import { trendingFiltersFrom } from './campaign-filter-input.js';
import { PUBLIC_ERROR_RESPONSES } from './error-responses.js';
import { sendJsonText } from './send-json-text.js';

/** GET /reward-kit/trending: active campaigns by USD claimed in the last hour or day. */
export const trendingRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const deps = { windows: app.claimWindows, trending: app.repositories.trending, entries: app.entryCache };
  app.get(
    '/reward-kit/trending',
    {
      schema: {
        operationId: 'listTrendingCampaigns',
        tags: ['activity'],
        summary: 'Trending campaigns',
        description:
          'Active campaigns with claims in the period (`sortBy`, default `24h`), by USD claimed in it, highest first, ' +
          'ties on `id`. Volumes are exact at the instant of the request: a claim counts for `1h` when it was made ' +
          'less than an hour before. With `claimantAddress`, `status`, `accessStatus` and `signature` describe that address.',
        querystring: TrendingQuery,
        response: {
          200: { ...ref(TrendingList), description: 'One page of trending campaigns', examples: [TRENDING_LIST_EXAMPLE] },
          ...PUBLIC_ERROR_RESPONSES,
        },
      },
      config: { publicCache: true },
    },
    async (request, reply) => {
      const { query } = request;
      const trending = await listTrending(deps, {
        period: query.sortBy ?? '24h',
        filters: trendingFiltersFrom(query),
        claimant: query.claimantAddress?.toLowerCase(),
        includeTokenMetadata: query.includeTokenMetadata ?? false,
        page: pageRequest(query),
        now: app.clock(),
      });
      return sendJsonText(reply, trending);
    },
  );
};
