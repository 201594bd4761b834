import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { notFound } from '../errors.js';
import { refuseCursorWithPage } from '../keyset-cursor.js';
import type { LeaderboardScope } from '../repositories/leaderboard.repository.js';
import { ErrorResponse, pageRequest } from '../schemas/common.js';
import {
  CampaignLeaderboardQuery,
  Leaderboard,
  LeaderboardParams,
  LeaderboardQuery,
} from '../schemas/leaderboard.js';
import { CAMPAIGN_LEADERBOARD_EXAMPLE, LEADERBOARD_EXAMPLE } from '../schemas/leaderboard-examples.js';
import { ref } from '../schemas/typebox.js';
import { type LeaderboardAsk, leaderboardPage } from '../services/leaderboard.js';
import { normaliseCampaignId, parseTokenFilter } from './campaign-filter-input.js';
import { PUBLIC_ERROR_RESPONSES } from './error-responses.js';

const RANKING =
  'Each address that claimed in the window, with its claims and the USD value it was paid, ranked by `by`: addresses with ' +
  'equal totals share a rank, and the rank after them skips as many (1, 2, 2, 4); they are listed by address. `address` adds ' +
  "that address's own entry, wherever it ranks. Pages by `page` or by `cursor`; every answer with entries after it carries " +
  '`nextCursor` and a `Link: <…>; rel="next"` header. Exact: a claim, a late price, an import or a reorganisation\'s removed ' +
  'claim shows in the next answer.';

/** GET /campaigns/{id}/leaderboard and GET /leaderboard: who claimed most. */
export const leaderboardRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { leaderboards } = app.repositories;

  const answer = async (request: FastifyRequest, reply: FastifyReply, scope: LeaderboardScope, scopeKey: string, query: CampaignLeaderboardQuery) => {
    refuseCursorWithPage(query);
    const ask: LeaderboardAsk = {
      window: query.window ?? '7d',
      by: query.by ?? 'usd',
      page: pageRequest(query),
      includeTotal: query.includeTotal === true,
      now: app.clock(),
      ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
      ...(query.address === undefined ? {} : { address: query.address.toLowerCase() }),
      params: otherParams(request.url),
    };
    const found = await leaderboardPage(leaderboards, app.claimWindows, scope, scopeKey, ask);
    if (found === null) return null;
    if (found.link !== undefined) void reply.header('link', found.link);
    return found.body;
  };

  app.get(
    '/campaigns/:id/leaderboard',
    {
      schema: {
        operationId: 'getCampaignLeaderboard',
        tags: ['campaigns'],
        summary: "A campaign's top claimants",
        description: `The campaign's claims of the window. ${RANKING}`,
        params: LeaderboardParams,
        querystring: CampaignLeaderboardQuery,
        response: {
          200: { ...ref(Leaderboard), description: "One page of the campaign's leaderboard", examples: [CAMPAIGN_LEADERBOARD_EXAMPLE] },
          ...PUBLIC_ERROR_RESPONSES,
          404: { ...ref(ErrorResponse), description: 'No campaign has this ID' },
        },
      },
      config: { publicCache: true },
    },
    async (request, reply) => {
      const publicId = normaliseCampaignId(request.params.id);
      const found = await answer(request, reply, { campaign: publicId }, `campaign:${publicId}`, request.query);
      if (found === null) throw notFound(`campaign ${publicId} not found`);
      return found;
    },
  );

  app.get(
    '/leaderboard',
    {
      schema: {
        operationId: 'getLeaderboard',
        tags: ['campaigns'],
        summary: 'The top claimants of all campaigns',
        description:
          'The claims of every campaign in the window; `chainId` and `owner` keep the claims of campaigns on that chain or of ' +
          `that owner, \`tokens\` the claims paid in those tokens. ${RANKING}`,
        querystring: LeaderboardQuery,
        response: {
          200: { ...ref(Leaderboard), description: 'One page of the leaderboard', examples: [LEADERBOARD_EXAMPLE] },
          ...PUBLIC_ERROR_RESPONSES,
        },
      },
      config: { publicCache: true },
    },
    async (request, reply) => {
      const { query } = request;
      const tokens = query.tokens?.map((entry, index) => {
        const { chainId, address } = parseTokenFilter(entry, index);
        return { chainId, address };
      });
      const scope: LeaderboardScope = {
        ...(query.chainId === undefined ? {} : { chainId: query.chainId }),
        ...(query.owner === undefined ? {} : { owner: query.owner.toLowerCase() }),
        ...(tokens === undefined ? {} : { tokens }),
      };
      const scopeKey = `all:${query.chainId ?? ''}:${scope.owner ?? ''}:${(tokens ?? []).map((token) => `${token.chainId}:${token.address}`).sort().join(',')}`;
      return (await answer(request, reply, scope, scopeKey, query))!;
    },
  );
};

/** The request's parameters but the page's own (`page`, `pageSize`, `cursor`), as it wrote them. */
function otherParams(url: string): Record<string, string> {
  const params = new URLSearchParams(url.split('?')[1] ?? '');
  for (const own of ['page', 'pageSize', 'cursor']) params.delete(own);
  return Object.fromEntries(params);
}
