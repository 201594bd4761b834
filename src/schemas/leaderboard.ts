import { type Static, Type } from '@sinclair/typebox';
import { Address, CampaignId, ChainId, CursorQuery, DateTime, PaginationQuery } from './common.js';
import { Nullable, ref, StringEnum } from './typebox.js';

/** `GET /campaigns/{id}/leaderboard` and `GET /leaderboard`: the addresses that claimed most over a window. */

export const LEADERBOARD_WINDOWS = ['24h', '7d', '30d', 'all'] as const;
export type LeaderboardWindow = (typeof LEADERBOARD_WINDOWS)[number];
export const LEADERBOARD_METRICS = ['usd', 'claims'] as const;
export type LeaderboardMetric = (typeof LEADERBOARD_METRICS)[number];

/** The window's length in milliseconds; `all` has none. */
export const LEADERBOARD_WINDOW_MS: Record<LeaderboardWindow, number | null> = {
  '24h': 24 * 3_600_000,
  '7d': 7 * 24 * 3_600_000,
  '30d': 30 * 24 * 3_600_000,
  all: null,
};

const LeaderboardPaging = {
  ...PaginationQuery,
  window: Type.Optional(
    StringEnum(LEADERBOARD_WINDOWS, {
      default: '7d',
      description: 'The claims that count: those of the last 24 hours, 7 days or 30 days before the answer, or all of them',
    }),
  ),
  by: Type.Optional(
    StringEnum(LEADERBOARD_METRICS, { default: 'usd', description: '`usd`: the USD value claimed; `claims`: the number of claims' }),
  ),
  address: Type.Optional(
    Type.Unsafe<string>({ ...ref(Address), description: "Also answer this address's own entry (`addressEntry`), wherever it ranks" }),
  ),
  cursor: CursorQuery(
    'Continues a walk from the page that gave it (`nextCursor`, or the `Link: <…>; rel="next"` header): the entries ' +
      "after that page's last in the order of the moment, by the metric then address. An address whose total changes " +
      'during the walk moves: one that rose past the cursor is not seen again, one that fell below it is seen twice. ' +
      'Not with `page` above 1; keep the other parameters as they were.',
  ),
  includeTotal: Type.Optional(Type.Boolean({ description: 'Also count the addresses on all pages (`totalCount`)' })),
};

export const CampaignLeaderboardQuery = Type.Object(LeaderboardPaging, { additionalProperties: false });
export type CampaignLeaderboardQuery = Static<typeof CampaignLeaderboardQuery>;

export const LEADERBOARD_TOKEN_PATTERN = '^[0-9]{1,10}:0x[a-fA-F0-9]{40}$';

export const LeaderboardQuery = Type.Object(
  {
    ...LeaderboardPaging,
    chainId: Type.Optional({ ...ChainId, description: 'Only claims of campaigns on this chain' }),
    tokens: Type.Optional(
      Type.Array(
        Type.String({ pattern: LEADERBOARD_TOKEN_PATTERN, errorMessage: 'must be <chain_id>:<token_address>' }),
        {
          description: 'Only claims paid in these tokens, comma-separated `<chain_id>:<address>`; any of them matches',
          examples: [['8453:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913']],
        },
      ),
    ),
    owner: Type.Optional(Type.Unsafe<string>({ ...ref(Address), description: 'Only claims of campaigns this address owns' })),
  },
  { additionalProperties: false },
);
export type LeaderboardQuery = Static<typeof LeaderboardQuery>;

export const LeaderboardParams = Type.Object({ id: ref(CampaignId) }, { additionalProperties: false });

export const LeaderboardEntry = Type.Object(
  {
    rank: Nullable(Type.Integer({ minimum: 1 }), {
      description:
        'One more than the number of addresses ahead by the metric: addresses with equal totals share a rank and the next ' +
        'rank skips as many (1, 2, 2, 4). Null only in `addressEntry`, for an address without claims in the window',
    }),
    address: ref(Address),
    claims: Type.Integer({ minimum: 0, description: 'Claims made in the window (a raffle draw is not a claim)' }),
    usd: Type.Number({ minimum: 0, description: 'USD value of what the address was paid in the window, raffle draws included, as each claim was valued' }),
  },
  { $id: 'LeaderboardEntry', additionalProperties: false },
);
export type LeaderboardEntry = Static<typeof LeaderboardEntry>;

export const Leaderboard = Type.Object(
  {
    campaignId: Type.Optional(ref(CampaignId)),
    window: StringEnum(LEADERBOARD_WINDOWS),
    by: StringEnum(LEADERBOARD_METRICS),
    from: Nullable(DateTime, { description: 'Claims made after this instant count; null for `all`' }),
    to: { ...DateTime, description: 'The instant the ranks were taken: claims made up to it count' },
    entries: Type.Array(ref(LeaderboardEntry), { description: 'Highest first; equal totals by address' }),
    addressEntry: Type.Optional(ref(LeaderboardEntry)),
    totalCount: Type.Optional(Type.Integer({ minimum: 0, description: 'Addresses on all pages, with `includeTotal=true`' })),
    nextCursor: Nullable(Type.String(), { description: 'The cursor of the next page (also in the `Link` header), null after the last' }),
  },
  { $id: 'Leaderboard', additionalProperties: false },
);
export type Leaderboard = Static<typeof Leaderboard>;
