import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { notFound } from '../errors.js';
import { decodeCursor, nextPage, refuseCursorWithPage } from '../keyset-cursor.js';
import { ErrorResponse, pageRequest } from '../schemas/common.js';
import { ActivityPage, ActivityParams, ActivityQuery, ExploreList, ExploreQuery } from '../schemas/explore.js';
import type { Incentive } from '../schemas/incentives.js';
import { ACTIVITY_EXAMPLE, EXPLORE_EXAMPLE } from '../schemas/reward-kit-examples.js';
import { ref } from '../schemas/typebox.js';
import { exploreCampaigns } from '../services/explore-campaigns.js';
import { normaliseCampaignId } from './campaign-filter-input.js';
import { exploreRequest } from './contracts.js';
import { PUBLIC_ERROR_RESPONSES } from './error-responses.js';
import { sendJsonText } from './send-json-text.js';
import { JsonBytes } from '../json/json-bytes.js';

/** A cursor of the activity feed continues only the walk that gave it: the same campaign, the same claimant filter. */
export const activityCursorScope = (publicId: string, claimant: string | undefined) => `activity:${publicId}:${claimant ?? ''}`;

/** GET /explore and GET /campaigns/{id}/activity of the public API (docs/public-api.md). */
export const exploreRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { campaigns, contracts, activity } = app.repositories;

  app.get(
    '/explore',
    {
      schema: {
        operationId: 'exploreCampaigns',
        tags: ['campaigns'],
        summary: 'Explore campaigns',
        description:
          'Campaigns ranked by their claims (`most-completions`, default) or USD claimed (`total-spend`) in `timePeriod` ' +
          '(default `7d`; only campaigns with claims in it), or all campaigns newest first (`recently-deployed`); ties on `id`.',
        querystring: ExploreQuery,
        response: {
          200: { ...ref(ExploreList), description: 'One page of campaigns and the total', examples: [EXPLORE_EXAMPLE] },
          ...PUBLIC_ERROR_RESPONSES,
        },
      },
      config: { publicCache: true },
    },
    async (request, reply) => {
      const { query } = request;
      const { items, total } = await exploreCampaigns(app.claimWindows, campaigns, contracts, exploreRequest(query, app.clock()));
      return sendJsonText(reply, new JsonBytes().text('{"campaigns":').elements(items).text(`,"totalCount":${total}}`).toBuffer<ExploreList>());
    },
  );

  app.get(
    '/campaigns/:id/activity',
    {
      schema: {
        operationId: 'getCampaignActivity',
        tags: ['campaigns'],
        summary: 'Get events for a specific campaign',
        description:
          "The campaign's claims, newest first (ties on the claim's order), each with the incentive it paid; `claimant` " +
          'keeps one address\'s claims. `totalActivityCount` counts every page. A RAFFLE\'s entries are its claims; its draw (the ' +
          'payout to the winner) is not a claim and not listed here, though its amount counts in the incentive\'s `totalAmountClaimed`: ' +
          'GET /events streams it as `draw.written`.',
        params: ActivityParams,
        querystring: ActivityQuery,
        response: {
          200: { ...ref(ActivityPage), description: 'One page of claims; a `Link: <…>; rel="next"` header when more follow', examples: [ACTIVITY_EXAMPLE] },
          ...PUBLIC_ERROR_RESPONSES,
          404: { ...ref(ErrorResponse), description: 'No campaign has this ID' },
        },
      },
      config: { publicCache: true },
    },
    async (request, reply) => {
      const { query } = request;
      const publicId = normaliseCampaignId(request.params.id);
      const claimant = query.claimant?.toLowerCase();
      refuseCursorWithPage(query);
      const scope = activityCursorScope(publicId, claimant);
      const { limit, offset } = pageRequest(query);
      const after = query.cursor === undefined ? undefined : decodeCursor(scope, query.cursor);
      const found = await activity.findActivity(
        publicId,
        claimant,
        after === undefined ? { limit, offset, count: true } : { limit, after, count: query.includeTotal === true },
      );
      if (found === null) throw notFound(`campaign ${publicId} not found`);
      const last = found.claims.at(-1)?.position ?? after;
      const { cursor: nextCursor, link } = nextPage(scope, {
        more: found.more,
        last: last && [last.key, last.id],
        limit,
        cursor: query.cursor,
        params: claimant ? { claimant } : {},
      });
      if (link !== undefined) void reply.header('link', link);
      return {
        activityEvents: found.claims.map((claim) => ({
          claimant: claim.claimant,
          blockTimestamp: claim.block_timestamp,
          txHash: claim.tx_hash,
          incentives: [found.incentives[claim.incentive_position] as Incentive],
        })),
        totalActivityCount: found.total,
        // A page answers in the public API's shape; a walk by cursor carries its next cursor.
        ...(after === undefined ? {} : { nextCursor }),
      };
    },
  );
};
