import { type Static, Type } from '@sinclair/typebox';
import { CURSOR_PATTERN } from '../keyset-cursor.js';

/**
 * The building blocks every resource shares. Each has an `$id`: it is registered once with
 * `app.addSchema` and becomes a named component of the OpenAPI document.
 *
 * `errorMessage` is the wording of a 400 when a value breaks the pattern; the error formatter
 * uses it so that no regular expression ever reaches a client.
 */
export const Address = Type.String({
  $id: 'Address',
  pattern: '^0x[a-fA-F0-9]{40}$',
  errorMessage: 'must be an address: 0x followed by 40 hexadecimal characters',
  description: 'An EVM address. Accepted in any case; returned in lowercase.',
  examples: ['0x378632819f39c74c4f56b1429e760739c5fb51b7'],
});

export const BigIntString = Type.String({
  $id: 'BigIntString',
  pattern: '^(0|[1-9][0-9]{0,77})$',
  errorMessage: 'must be an unsigned integer of up to 78 decimal digits',
  description: 'An unsigned integer up to uint256, as a string of decimal digits.',
  examples: ['1000000000000000000'],
});

/** `<chain_id>:<campaign_core_address>:<identifier>`; over 100 characters for real campaigns. */
export const CampaignId = Type.String({
  $id: 'CampaignId',
  pattern: '^[0-9]{1,10}:0x[a-fA-F0-9]{40}:[0-9]{1,78}$',
  maxLength: 131,
  errorMessage: 'must be a campaign ID of the form <chain_id>:<campaign_core_address>:<identifier>',
  description: 'Campaign ID `<chain_id>:<campaign_core_address>:<identifier>` (decimal chain id, address, decimal index).',
  examples: ['8453:0x378632819f39c74c4f56b1429e760739c5fb51b7:1247'],
});

/** The largest chain id the service stores (PostgreSQL `integer`). */
export const MAX_CHAIN_ID = 2_147_483_647;

export const ChainId = Type.Integer({ minimum: 0, maximum: MAX_CHAIN_ID, description: 'EVM chain id', examples: [8453] });

/** The incentive a claim signature is for, as BoostCore numbers it (src/db/sql/incentive_chain_id.sql). */
export const ClaimIncentiveId = Type.Integer({
  minimum: 0,
  description:
    "The incentive's id in its boost, as `BoostCore.claimIncentive(boostId, incentiveId, referrer, data)` takes it: its position among " +
    "the boost's incentives on chain. That is its position in the campaign's `incentives`, except where the boost also has incentives " +
    'of a type this service does not list (they count here, and are not in `incentives`)',
});

/** Transaction hashes and signatures: 0x-prefixed hex. */
export const HexString = Type.String({ pattern: '^0x([a-fA-F0-9]{2})*$', examples: ['0x1c1f5e3c'] });

export const DateTime = Type.String({ format: 'date-time', description: 'ISO 8601 UTC date-time' });

export const UnixSecondsString = Type.String({
  pattern: '^[0-9]+$',
  description: 'Unix time in seconds, as a decimal string',
  examples: ['1731628800'],
});

export const ErrorResponse = Type.Object(
  { error: Type.String({ description: 'What went wrong, in words', examples: ['pageSize must be <= 100'] }) },
  { $id: 'ErrorResponse', additionalProperties: false, description: 'Every error of every route has this shape.' },
);
export type ErrorResponse = Static<typeof ErrorResponse>;

/** Highest page number accepted: deeper offsets would only scan to return nothing. */
export const MAX_PAGE = 100_000;
export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 10;

/**
 * `page` and `pageSize`, shared by every paginated route. `page` counts from 1 (`0` means 1);
 * `pageSize=0` returns no items but still the total.
 */
export const PaginationQuery = {
  page: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_PAGE,
      default: 1,
      description: 'Page number, from 1 (0 is read as 1)',
      examples: [1],
    }),
  ),
  pageSize: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_PAGE_SIZE,
      default: DEFAULT_PAGE_SIZE,
      description: 'Items per page; 0 returns only the total',
      examples: [DEFAULT_PAGE_SIZE],
    }),
  ),
};

/** `cursor` of a list walked by keyset (src/keyset-cursor.ts): what a page of the walk gave. */
export const CursorQuery = (description: string) =>
  Type.Optional(
    Type.String({ pattern: CURSOR_PATTERN, errorMessage: 'must be a cursor this service gave (nextCursor, or the Link header)', description }),
  );

export interface PageRequest {
  limit: number;
  offset: number;
}

/** A page as SQL wants it. Pages count from 1 and page 0 is page 1; Ajv has applied the defaults. */
export function pageRequest(query: { page?: number; pageSize?: number }): PageRequest {
  const limit = query.pageSize ?? DEFAULT_PAGE_SIZE;
  return { limit, offset: (Math.max(query.page ?? 1, 1) - 1) * limit };
}
