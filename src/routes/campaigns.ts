import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { notFound } from '../errors.js';
import {
  CampaignDetail,
  CampaignList,
  CampaignListQuery,
  CampaignParams,
} from '../schemas/campaigns.js';
import { CAMPAIGN_DETAIL_EXAMPLE, CAMPAIGN_LIST_EXAMPLE } from '../schemas/campaign-examples.js';
import { ErrorResponse, pageRequest } from '../schemas/common.js';
import { ref } from '../schemas/typebox.js';
import { campaignFiltersFrom, normaliseCampaignId } from './campaign-filter-input.js';
import { PUBLIC_ERROR_RESPONSES } from './error-responses.js';
import { sendJsonText } from './send-json-text.js';
import { JsonBytes } from '../json/json-bytes.js';


/** The public campaign operations: the filtered, paginated list and one campaign by ID. */
export const campaignRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { campaigns } = app.repositories;

  app.get(
    '/campaigns',
    {
      schema: {
        operationId: 'listCampaigns',
        tags: ['campaigns'],
        summary: 'List campaigns',
        description:
          'Campaigns matching every given filter, newest first (or active first with `sortBy=active`), ' +
          'with their incentives and action steps. Pages never overlap: ties are broken by `id`.',
        querystring: CampaignListQuery,
        response: {
          200: { ...ref(CampaignList), description: 'One page of matching campaigns and the total', examples: [CAMPAIGN_LIST_EXAMPLE] },
          ...PUBLIC_ERROR_RESPONSES,
        },
      },
      config: { publicCache: true },
    },
    async (request, reply) => {
      const { query } = request;
      const now = app.clock();
      // Added to the fresh object rather than spread into a new one: see docs/design.md (hidden classes).
      const filters = Object.assign(campaignFiltersFrom(query), {
        actionTemplateOnly: query.actionTemplateOnly,
        activeAt: query.showActiveOnly === true ? now : undefined,
      });
      const page = await campaigns.listCampaigns(filters, query.sortBy ?? 'recently-deployed', pageRequest(query), now);
      return sendJsonText(
        reply,
        new JsonBytes().text('{"campaigns":').elements(page.items).text(`,"totalCampaigns":${page.total}}`).toBuffer<CampaignList>(),
      );
    },
  );

  app.get(
    '/campaigns/:id',
    {
      schema: {
        operationId: 'getCampaign',
        tags: ['campaigns'],
        summary: 'Get a campaign',
        description: 'One campaign by its ID `<chain_id>:<campaign_core_address>:<identifier>`.',
        params: CampaignParams,
        response: {
          200: { ...ref(CampaignDetail), examples: [CAMPAIGN_DETAIL_EXAMPLE] },
          ...PUBLIC_ERROR_RESPONSES,
          404: { ...ref(ErrorResponse), description: 'No campaign has this ID' },
        },
      },
      config: { publicCache: true },
    },
    async (request, reply) => {
      const id = normaliseCampaignId(request.params.id);
      const detail = await campaigns.findCampaignDetail(id, app.clock());
      if (detail === null) throw notFound(`campaign ${id} not found`);
      return sendJsonText(reply, detail);
    },
  );
};
