import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { badRequest, notFound } from '../errors.js';
import { ErrorResponse, pageRequest } from '../schemas/common.js';
import {
  Reward,
  RewardList,
  RewardListQuery,
  RewardParams,
  RewardProfile,
  RewardProfileQuery,
  RewardQuery,
} from '../schemas/reward-kit.js';
import { REWARD_EXAMPLE, REWARD_LIST_EXAMPLE, REWARD_PROFILE_EXAMPLE } from '../schemas/reward-kit-examples.js';
import { ref } from '../schemas/typebox.js';
import { getReward, listRewards, rewardProfile } from '../services/reward-kit.js';
import { normaliseCampaignId, trendingFiltersFrom } from './campaign-filter-input.js';
import { PUBLIC_ERROR_RESPONSES } from './error-responses.js';
import { sendJsonText } from './send-json-text.js';

/** GET /reward-kit/campaigns, /reward-kit and /reward-kit/campaigns/{id} of the public API (docs/public-api.md). */
export const rewardKitRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const deps = {
    windows: app.claimWindows,
    trending: app.repositories.trending,
    rewardKit: app.repositories.rewardKit,
    entries: app.entryCache,
    profiles: app.profileCache,
  };

  app.get(
    '/reward-kit/campaigns',
    {
      schema: {
        operationId: 'getRewardKitRewards',
        tags: ['reward-kit'],
        summary: 'Get a list of reward kit rewards',
        description:
          'Rewards as trending entries. `status` chooses them: `active` (default without `claimantAddress`), `claimable` ' +
          '(default with it) or `claimed`; `sortBy` orders them (`active`: active first, then newest; `recently-deployed`).',
        querystring: RewardListQuery,
        response: {
          200: { ...ref(RewardList), description: 'One page of rewards', examples: [REWARD_LIST_EXAMPLE] },
          ...PUBLIC_ERROR_RESPONSES,
        },
      },
      config: { publicCache: true },
    },
    async (request, reply) => {
      const { query } = request;
      const claimant = query.claimantAddress?.toLowerCase();
      const status = query.status ?? (claimant === undefined ? 'active' : 'claimable');
      if (status !== 'active' && claimant === undefined) throw badRequest(`status ${status} needs claimantAddress`);
      const rewards = await listRewards(deps, {
        status,
        claimant,
        filters: trendingFiltersFrom(query),
        sort: query.sortBy ?? 'active',
        includeTokenMetadata: query.includeTokenMetadata ?? false,
        page: pageRequest(query),
        now: app.clock(),
      });
      return sendJsonText(reply, rewards);
    },
  );

  app.get(
    '/reward-kit',
    {
      schema: {
        operationId: 'getRewardKit',
        tags: ['reward-kit'],
        summary: "Get a user's RewardKit profile",
        description:
          "A user's rewards: the ones it claimed, the active ones it holds an unused claim signature for, and the active " +
          'ones it may access and has neither claimed nor holds a signature for; at most 100 each, most recent first.',
        querystring: RewardProfileQuery,
        response: {
          200: { ...ref(RewardProfile), description: "The user's rewards", examples: [REWARD_PROFILE_EXAMPLE] },
          ...PUBLIC_ERROR_RESPONSES,
        },
      },
      config: { publicCache: true },
    },
    async (request, reply) => {
      const { query } = request;
      const { body, etag } = await rewardProfile(deps, {
        claimant: query.claimantAddress.toLowerCase(),
        filters: trendingFiltersFrom(query),
        includeTokenMetadata: query.includeTokenMetadata ?? false,
        now: app.clock(),
      });
      // Known for a kept answer: the public-cache hook then does not hash it again.
      if (etag !== undefined) void reply.header('etag', etag);
      return sendJsonText(reply, body);
    },
  );

  app.get(
    '/reward-kit/campaigns/:id',
    {
      schema: {
        operationId: 'getRewardKitReward',
        tags: ['reward-kit'],
        summary: 'Get a single RewardKit reward',
        description:
          'One reward by campaign ID, whatever its state, with its newest 100 claims. With `address`: that address\'s ' +
          '`status`, `accessStatus` and latest claim `txHash`.',
        params: RewardParams,
        querystring: RewardQuery,
        response: {
          200: { ...ref(Reward), examples: [REWARD_EXAMPLE] },
          ...PUBLIC_ERROR_RESPONSES,
          404: { ...ref(ErrorResponse), description: 'No campaign has this ID' },
        },
      },
      config: { publicCache: true },
    },
    async (request, reply) => {
      const publicId = normaliseCampaignId(request.params.id);
      const reward = await getReward(deps, {
        publicId,
        address: request.query.address?.toLowerCase(),
        includeTokenMetadata: request.query.includeTokenMetadata ?? false,
        now: app.clock(),
      });
      if (reward === null) throw notFound(`reward ${publicId} not found`);
      return sendJsonText(reply, reward);
    },
  );
};
