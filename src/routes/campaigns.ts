import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { notFound } from '../errors.js';
import { DECIMAL, decodeCursorFields, nextPage, refuseCursorWithPage } from '../keyset-cursor.js';
import { type CampaignFilters, filtersKey } from '../repositories/campaign-filters.js';
import type { CampaignPosition, CampaignSort } from '../repositories/campaigns.repository.js';
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

/** A cursor of the campaign list continues only the walk that gave it: the same filters, the same sort. */
const campaignsCursorScope = (filters: CampaignFilters, sort: CampaignSort) => `campaigns:${sort}:${filtersKey(filters)}`;

/** The parameters of the list besides its paging, in the form the request gave them: what a next page's link carries on. */
const LIST_PARAMS = Object.keys(CampaignListQuery.properties).filter(
  (name) => !['page', 'pageSize', 'cursor', 'includeTotal'].includes(name),
) as (keyof CampaignListQuery)[];

function listParams(query: CampaignListQuery): Record<string, string> {
  const params: Record<string, string> = {};
  for (const name of LIST_PARAMS) {
    const value = query[name];
    if (value !== undefined) params[name] = Array.isArray(value) ? value.join(',') : String(value);
  }
  return params;
}

/**
 * The walk a campaign list cursor continues: the instant of its first page (epoch milliseconds) and
 * the position of the page before's last campaign (its rank, block time and public ID).
 */
function campaignsPosition(scope: string, cursor: string): { at: Date; after: CampaignPosition } {
  const [at, rank, blockTimestamp, publicId] = decodeCursorFields(scope, cursor, [
    /^[0-9]{1,13}$/,
    /^[01]$/,
    DECIMAL,
    /^[0-9]{1,10}:0x[0-9a-f]{40}:[0-9]{1,78}$/,
  ]) as [string, string, string, string];
  return { at: new Date(Number(at)), after: { rank: rank === '1' ? 1 : 0, blockTimestamp, publicId } };
}

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
          'with their incentives and action steps. Pages never overlap: ties are broken by `id`. ' +
          'Deep pages by `cursor` (the `Link: <…>; rel="next"` header of any page with more after it, or `nextCursor`): a walk ' +
          'returns every campaign that matches throughout it exactly once, however many campaigns are written or removed ' +
          'meanwhile. It keeps the instant of its first page, so a campaign that starts or ends by the clock during the walk ' +
          'keeps its place (and its `isActive`) until the walk ends. A campaign that a write makes active or inactive (its ' +
          'budget runs out or is topped up, its times change) moves between the halves of `sortBy=active` and may be ' +
          'seen twice or not at all, and with `showActiveOnly` it joins or leaves the list.',
        querystring: CampaignListQuery,
        response: {
          200: {
            ...ref(CampaignList),
            description: 'One page of matching campaigns and the total; a `Link: <…>; rel="next"` header when more follow',
            examples: [CAMPAIGN_LIST_EXAMPLE],
          },
          ...PUBLIC_ERROR_RESPONSES,
        },
      },
      config: { publicCache: true },
    },
    async (request, reply) => {
      const { query } = request;
      refuseCursorWithPage(query);
      const sort = query.sortBy ?? 'recently-deployed';
      const clock = app.clock();
      // Added to the fresh object rather than spread into a new one: see docs/design.md (hidden classes).
      const filters = Object.assign(campaignFiltersFrom(query), {
        actionTemplateOnly: query.actionTemplateOnly,
        activeAt: query.showActiveOnly === true ? clock : undefined,
      });
      const scope = campaignsCursorScope(filters, sort);
      const walk = query.cursor === undefined ? undefined : campaignsPosition(scope, query.cursor);
      // A walk keeps the instant of its first page: which campaigns are active is judged then on every page.
      const now = walk?.at ?? clock;
      if (filters.activeAt !== undefined) filters.activeAt = now;
      const { limit, offset } = pageRequest(query);
      const page = await campaigns.listCampaigns(
        filters,
        sort,
        walk === undefined ? { limit, offset, count: true } : { limit, after: walk.after, count: query.includeTotal === true },
        now,
      );
      const last = page.last ?? walk?.after;
      const { cursor: nextCursor, link } = nextPage(scope, {
        more: page.more,
        last: last && [String(now.getTime()), String(last.rank), last.blockTimestamp, last.publicId],
        limit,
        cursor: query.cursor,
        params: listParams(query),
      });
      if (link !== undefined) void reply.header('link', link);
      // A page answers in the public API's shape; a walk by cursor carries its next cursor.
      const body = new JsonBytes().text('{"campaigns":').elements(page.items);
      if (page.total !== undefined) body.text(`,"totalCampaigns":${page.total}`);
      if (walk !== undefined) body.text(`,"nextCursor":${JSON.stringify(nextCursor)}`);
      return sendJsonText(reply, body.text('}').toBuffer<CampaignList>());
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
