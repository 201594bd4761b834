import { type Static, Type } from '@sinclair/typebox';
import { INSTANT_PATTERN } from '../instant.js';
import { Address, BigIntString, CampaignId, DateTime } from './common.js';
import { Nullable, ref, StringEnum } from './typebox.js';

/** `GET /campaigns/{id}/history`: a campaign's claims and spending, one bucket per hour or day. */

export const HISTORY_INTERVALS = ['hour', 'day'] as const;
export type HistoryInterval = (typeof HISTORY_INTERVALS)[number];
/** The most buckets one answer holds: 41 days by hour, or 1,000 days by day. */
export const MAX_HISTORY_BUCKETS = 1000;
/** Buckets when `from` is left out: the last 30 (hours or days), the one holding `to` included. */
export const DEFAULT_HISTORY_BUCKETS = 30;
/** The burn rate behind the projection: what was paid in the 7 days of whole UTC hours before the current hour. */
export const BURN_WINDOW_DAYS = 7;

const Instant = (description: string) =>
  Type.String({
    pattern: INSTANT_PATTERN,
    errorMessage: 'must be a date (2026-11-01) or an ISO 8601 date-time with Z or an offset (2026-11-01T12:00:00Z)',
    description,
    examples: ['2026-11-01T00:00:00Z'],
  });

export const HistoryQuery = Type.Object(
  {
    interval: Type.Optional(StringEnum(HISTORY_INTERVALS, { default: 'day', description: 'Bucket size: UTC hours or UTC days' })),
    from: Type.Optional(
      Instant(`The first bucket is the one holding this instant; default: ${DEFAULT_HISTORY_BUCKETS} buckets before \`to\``),
    ),
    to: Type.Optional(Instant('The last bucket is the one holding this instant; default: now')),
  },
  { additionalProperties: false },
);
export type HistoryQuery = Static<typeof HistoryQuery>;

export const HistoryParams = Type.Object({ id: ref(CampaignId) }, { additionalProperties: false });

const TokenPaid = Type.Object(
  {
    token: ref(Address),
    amount: Type.Unsafe<string>({ ...ref(BigIntString), description: 'Paid in the bucket, in base units (raffle draws included)' }),
    usd: Type.Number({ description: 'USD value of what was paid in the bucket, as valued when each claim was priced' }),
  },
  { additionalProperties: false },
);

const TokenLeft = Type.Object(
  {
    token: ref(Address),
    amount: Type.Unsafe<string>({ ...ref(BigIntString), description: "Budget left at the bucket's end, in base units" }),
  },
  { additionalProperties: false },
);

export const HistoryBucket = Type.Object(
  {
    start: DateTime,
    claims: Type.Integer({ minimum: 0, description: 'Claims made in the bucket (a raffle draw is not a claim)' }),
    claimants: Type.Integer({ minimum: 0, description: 'Distinct addresses that claimed in the bucket' }),
    newClaimants: Type.Integer({ minimum: 0, description: 'Addresses whose first claim of this campaign is in the bucket' }),
    paid: Type.Array(TokenPaid, { description: "One entry per token the campaign's incentives pay, zeros included" }),
    budgetLeft: Type.Array(TokenLeft, { description: 'One entry per token with a budget: the budget as it stands now, less what was paid up to the bucket\'s end' }),
  },
  { $id: 'HistoryBucket', additionalProperties: false },
);

const TokenProjection = Type.Object(
  {
    token: ref(Address),
    left: Type.Unsafe<string>({ ...ref(BigIntString), description: 'Budget left now, in base units' }),
    paidPerDay: Type.Unsafe<string>({ ...ref(BigIntString), description: `Average paid per day over the ${BURN_WINDOW_DAYS * 24} whole UTC hours before the current hour, in base units, rounded down` }),
    exhaustsAt: Nullable(DateTime, { description: 'When the budget runs out at that rate, counted from the start of the current second; null when nothing was paid (or nothing is left)' }),
  },
  { additionalProperties: false },
);

export const CampaignHistory = Type.Object(
  {
    campaignId: ref(CampaignId),
    interval: StringEnum(HISTORY_INTERVALS),
    from: { ...DateTime, description: 'Start of the first bucket' },
    to: { ...DateTime, description: 'End of the last bucket (exclusive)' },
    tokens: Type.Array(
      Type.Object(
        { token: ref(Address), symbol: Nullable(Type.String()), decimals: Nullable(Type.Integer({ minimum: 0 })) },
        { additionalProperties: false },
      ),
      { description: "The tokens the campaign's incentives pay" },
    ),
    buckets: Type.Array(ref(HistoryBucket), { description: 'Every bucket from `from` to `to`, in order; a bucket without claims has zeros' }),
    projection: Type.Object(
      {
        exhaustsAt: Nullable(DateTime, {
          description:
            'When the last budgeted token runs out, counted from the start of the current second, if each keeps being paid at its rate of the ' +
            `${BURN_WINDOW_DAYS * 24} whole UTC hours before the current hour; null when one of them would never run out at that rate, or the campaign has no budget left or none at all`,
        }),
        tokens: Type.Array(TokenProjection),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'CampaignHistory', additionalProperties: false },
);
export type CampaignHistory = Static<typeof CampaignHistory>;
export type HistoryBucket = Static<typeof HistoryBucket>;
