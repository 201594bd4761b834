import { type Static, Type } from '@sinclair/typebox';
import { CampaignListItem } from './campaigns.js';
import { Address, CampaignId, CursorQuery, PaginationQuery } from './common.js';
import { ContractsQuery } from './contracts.js';
import { Incentive } from './incentives.js';
import { Nullable, ref } from './typebox.js';

/** `GET /explore` and `GET /campaigns/{id}/activity` of the public API (docs/public-api.md). */

export const ExploreQuery = Type.Object(
  {
    ...PaginationQuery,
    sortBy: ContractsQuery.properties.sortBy,
    timePeriod: ContractsQuery.properties.timePeriod,
    actionChainIds: Type.Optional({ ...ContractsQuery.properties.actionChainIds, description: "Only campaigns on these chains, comma-separated" }),
    userAddress: Type.Optional(Type.Unsafe<string>({ ...ref(Address), description: 'Only campaigns deployed by this address' })),
  },
  { additionalProperties: false },
);
export type ExploreQuery = Static<typeof ExploreQuery>;

export const ExploreList = Type.Object(
  {
    campaigns: Type.Array(ref(CampaignListItem)),
    totalCount: Type.Integer({ minimum: 0, description: 'Matching campaigns on all pages' }),
  },
  { $id: 'ExploreList', additionalProperties: false },
);
export type ExploreList = Static<typeof ExploreList>;

export const ActivityQuery = Type.Object(
  {
    ...PaginationQuery,
    claimant: Type.Optional(Type.Unsafe<string>({ ...ref(Address), description: "Only this address's claims" })),
    cursor: CursorQuery(
      'Continues a walk from the page that gave it (`nextCursor`, or the `Link: <…>; rel="next"` header of any page): the ' +
        'claims after that page\'s last, in the same order, each exactly once however many claims are written or removed ' +
        'meanwhile. Deep pages stay as fast as the first. Not with `page` above 1; keep `claimant` as it was.',
    ),
    includeTotal: Type.Optional(
      Type.Boolean({ description: 'With `cursor`: also count the claims on all pages (`totalActivityCount`). A `page` always has the count.' }),
    ),
  },
  { additionalProperties: false },
);
export type ActivityQuery = Static<typeof ActivityQuery>;

export const ActivityParams = Type.Object({ id: ref(CampaignId) }, { additionalProperties: false });

export const ActivityEvent = Type.Object(
  {
    claimant: ref(Address),
    blockTimestamp: Type.String({ pattern: '^[0-9]+$', description: "The claim's unix time in seconds, as a decimal string" }),
    txHash: Type.String(),
    incentives: Type.Array(ref(Incentive), { description: 'The incentive the claim paid, in the campaign list shape' }),
  },
  { $id: 'ActivityEvent', additionalProperties: false, description: 'One claim.' },
);

export const ActivityPage = Type.Object(
  {
    activityEvents: Type.Array(ref(ActivityEvent)),
    totalActivityCount: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Claims on all pages: always with `page`, with `cursor` when `includeTotal=true`' }),
    ),
    nextCursor: Type.Optional(
      Nullable(Type.String(), {
        description: 'With `cursor` only: the cursor of the next page, null after the last. (A `page` answer gives it in its `Link` header.)',
      }),
    ),
  },
  { $id: 'ActivityPage', additionalProperties: false },
);
export type ActivityPage = Static<typeof ActivityPage>;
