import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { notFound } from '../errors.js';
import { ErrorResponse } from '../schemas/common.js';
import { CampaignHistory, HistoryParams, HistoryQuery, MAX_HISTORY_BUCKETS } from '../schemas/history.js';
import { HISTORY_EXAMPLE } from '../schemas/history-examples.js';
import { ref } from '../schemas/typebox.js';
import { campaignHistory, historyWindow } from '../services/campaign-history.js';
import { normaliseCampaignId } from './campaign-filter-input.js';
import { PUBLIC_ERROR_RESPONSES } from './error-responses.js';
import { sendJsonText } from './send-json-text.js';

/** GET /campaigns/{id}/history: how a campaign is doing over time. */
export const historyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { history } = app.repositories;

  app.get(
    '/campaigns/:id/history',
    {
      schema: {
        operationId: 'getCampaignHistory',
        tags: ['campaigns'],
        summary: "A campaign's claims, claimants and spending over time",
        description:
          'One bucket per UTC hour or day from the one holding `from` to the one holding `to` (by default the last 30), ' +
          `at most ${MAX_HISTORY_BUCKETS}; a bucket without claims is there with zeros. Each has its claims, distinct claimants, ` +
          "claimants new to the campaign, what each token paid (amount and USD, raffle draws included) and each budgeted token's " +
          'budget left at its end: the budget as it stands now less what was paid up to then, so a top-up or clawback counts ' +
          'from when the service read it. `projection` divides the budget left now by the average paid per day over the 168 ' +
          'whole UTC hours before the current one, per token; the campaign runs out when its last budgeted token does. Exact: a claim, a late price, an ' +
          "import or a reorganisation's removed claim shows in the next answer.",
        params: HistoryParams,
        querystring: HistoryQuery,
        response: {
          200: { ...ref(CampaignHistory), description: "The campaign's buckets and projection", examples: [HISTORY_EXAMPLE] },
          ...PUBLIC_ERROR_RESPONSES,
          404: { ...ref(ErrorResponse), description: 'No campaign has this ID' },
        },
      },
      config: { publicCache: true },
    },
    async (request, reply) => {
      const publicId = normaliseCampaignId(request.params.id);
      const found = await campaignHistory({ history, cache: app.historyCache }, publicId, historyWindow(request.query, app.clock()));
      if (found === null) throw notFound(`campaign ${publicId} not found`);
      void reply.header('etag', found.etag);
      return sendJsonText(reply, found.body);
    },
  );
};
