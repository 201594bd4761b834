import { type Static, Type } from '@sinclair/typebox';
import { Address, BigIntString, CampaignId, ChainId, ClaimIncentiveId, DateTime } from './common.js';
import { settingDefault } from '../setting-defaults.js';
import { Nullable, ref, StringEnum } from './typebox.js';

/** The event types a stream can ask for (`type=`); `refetch` goes to every stream. */
export const EVENT_TYPES = ['claim.written', 'claim.removed', 'draw.written', 'draw.removed', 'campaign.created', 'campaign.changed', 'campaign.removed', 'trending.changed', 'signature.issued'] as const;

export const ClaimEvent = Type.Object(
  {
    campaignId: Nullable(ref(CampaignId), { description: "The claim's campaign; null in a removal that went with its campaign" }),
    chainId: ChainId,
    claimant: ref(Address),
    incentivePosition: Type.Integer({ description: "The incentive's position in the campaign" }),
    amount: ref(BigIntString),
    usdValue: Type.Number({ description: 'USD value at the claim\'s time, 6 decimals; 0 while valuePending' }),
    valuePending: Type.Boolean({ description: 'The value waits for a token price at the claim\'s time; a claim.written with the value follows' }),
    txHash: Type.String({ pattern: '^0x[0-9a-f]{64}$', description: 'Transaction of the claim' }),
    blockNumber: Nullable(Type.Integer(), { description: "Block of the claim's log; null for an imported claim whose file did not say it" }),
    logIndex: Type.Integer({ description: "Position of the claim's log in its block" }),
    claimedAt: DateTime,
  },
  {
    $id: 'ClaimEvent',
    additionalProperties: false,
    description:
      'Data of `claim.written` (a claim committed, or rewritten: its value found when a price arrived) and `claim.removed` ' +
      '(a claim gone: a chain reorganisation orphaned its block, or it was deleted); also of `draw.written` and `draw.removed`, ' +
      "the same for a RAFFLE incentive's draw: its payout to the winner (`claimant`), which adds to the amounts and USD the " +
      'totals show but is not a claim (no claim count or activity entry)',
  },
);

export const CampaignEvent = Type.Object(
  {
    campaignId: ref(CampaignId),
    chainId: ChainId,
    availableBudgetUsd: Nullable(Type.String(), { description: 'Unclaimed budget of the priced token incentives, in USD with 2 decimals, as GET /campaigns/{id} shows it' }),
    isActive: Type.Boolean({ description: 'Started, not ended and not exhausted, at the time of the write' }),
    exhausted: Type.Boolean({ description: 'Every incentive has reached its claim limit or spent its budget' }),
    ended: Type.Boolean({ description: 'Its end time had passed at the time of the write' }),
    startTime: Nullable(DateTime),
    endTime: Nullable(DateTime),
  },
  {
    $id: 'CampaignEvent',
    additionalProperties: false,
    description:
      'Data of `campaign.created` and `campaign.changed`: the campaign as it stands after a write that changed it (its incentives, a claim ' +
      'that moved its budget, a top-up). A campaign that starts or ends with time alone sends no event: compare startTime and endTime with the clock',
  },
);

export const CampaignRemovedEvent = Type.Object(
  { campaignId: ref(CampaignId), chainId: ChainId },
  { $id: 'CampaignRemovedEvent', additionalProperties: false, description: 'Data of `campaign.removed`: a reorganisation orphaned its creation, or it was deleted' },
);

export const TrendingEvent = Type.Object(
  {
    period: StringEnum(['1h', '24h'] as const, { description: 'The period ranked by USD claimed' }),
    top: Type.Array(
      Type.Object(
        {
          campaignId: ref(CampaignId),
          usdClaimed: Type.Number({ description: 'USD claimed in the period' }),
          claims: Type.Integer({ description: 'Claims in the period' }),
        },
        { additionalProperties: false },
      ),
      { maxItems: 10, description: 'The ten campaigns with the most USD claimed in the period, most first, ties on campaign ID' },
    ),
  },
  {
    $id: 'TrendingEvent',
    additionalProperties: false,
    description:
      'Data of `trending.changed`: the top of a period when its campaigns, order or volumes moved, at most once every ' +
      `${settingDefault('EVENTS_TRENDING_MS')} per period by default (\`EVENTS_TRENDING_MS\`). Derived` +
      ' by each server from its claim volumes: its id follows the last event it reflects, and a stream that ' +
      'resumes gets the tops its server sent since. Filters by campaign, claimant or chain leave it out',
  },
);

export const SignatureIssuedEvent = Type.Object(
  {
    campaignId: ref(CampaignId),
    chainId: ChainId,
    claimant: ref(Address),
    incentiveId: ClaimIncentiveId,
    signature: Type.String({ description: "What BoostCore.claimIncentive takes as `data` (GET /signatures)" }),
    referrer: ref(Address),
    txHash: Nullable(Type.String({ pattern: '^0x[0-9a-f]{64}$' }), { description: 'The transaction it was issued for; null for an imported signature' }),
  },
  {
    $id: 'SignatureIssuedEvent',
    additionalProperties: false,
    description: 'Data of `signature.issued`: a claim signature stored, issued by GET /signatures or imported; the claimant can claim with it',
  },
);

export const RefetchEvent = Type.Object(
  { reason: Type.String({ description: 'Why: the events since Last-Event-ID are no longer kept, or a bulk write replaced the data' }) },
  {
    $id: 'RefetchEvent',
    additionalProperties: false,
    description: 'Data of `refetch`, sent to every stream whatever its filter: what the client shows may be out of date, read it again',
  },
);

export const EventsQuery = Type.Object(
  {
    type: Type.Optional(
      Type.Array(StringEnum(EVENT_TYPES), { description: 'Only these event types, comma-separated (default: all); refetch always comes' }),
    ),
    campaignId: Type.Optional(Type.Array(ref(CampaignId), { description: 'Only events of these campaigns, comma-separated' })),
    claimant: Type.Optional(Type.Unsafe<string>({ ...ref(Address), description: 'Only claims of this address' })),
    chainId: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'Only events of this chain' })),
    lastEventId: Type.Optional(
      Type.String({
        pattern: '^[0-9]{1,15}(-[0-9]{1,15}(\\.[0-9]{1,3})?)?$',
        errorMessage: 'must be an event id this service sent, <number> or <number>-<number>',
        description: 'Resume after this event, as the Last-Event-ID header does (which wins), for clients that cannot set headers',
      }),
    ),
  },
  { additionalProperties: false },
);
export type EventsQuery = Static<typeof EventsQuery>;
