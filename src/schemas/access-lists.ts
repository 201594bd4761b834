import { type Static, Type } from '@sinclair/typebox';
import { DateTime, PaginationQuery } from './common.js';
import { ref, StringEnum } from './typebox.js';

export const ACCESS_LIST_SORT_FIELDS = ['totalMembers'] as const;
export const SORT_ORDERS = ['ASC', 'DESC'] as const;
export const MAX_SEARCH_LENGTH = 100;

/**
 * Characters a search term may not hold: `: & | ' ! ( ) < >` (full-text query
 * operators) and every control character (C0, DEL, C1).
 */
const SEARCH_PATTERN = "^[^:&|'!()<>\\u0000-\\u001f\\u007f-\\u009f]*$";

export const AccessListQuery = Type.Object(
  {
    userId: Type.Optional(
      Type.String({
        format: 'uuid',
        errorMessage: 'must be a user id (a UUID)',
        description: "Whose access lists; defaults to the token's user. Only your own user id is allowed (another is a 403).",
        examples: ['5b0f8a52-3c1e-4d8e-9a57-0c6c2f0e4b1a'],
      }),
    ),
    search: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_SEARCH_LENGTH,
        pattern: SEARCH_PATTERN,
        errorMessage: "must not contain any of the characters : & | ' ! ( ) < > or control characters",
        description:
          "Case-insensitive substring of the list's name, 1 to 100 characters, without `: & | ' ! ( ) < >` or " +
          'control characters. `%` and `_` match themselves.',
        examples: ['early'],
      }),
    ),
    sortBy: Type.Optional(StringEnum(ACCESS_LIST_SORT_FIELDS, { description: 'Sort by member count; without it, by creation time' })),
    order: Type.Optional(
      StringEnum(SORT_ORDERS, {
        default: 'DESC',
        description: 'Direction of the sort (of the creation time without sortBy, so the default is newest first)',
      }),
    ),
    page: Type.Optional(PaginationQuery.page),
    pageSize: Type.Optional(PaginationQuery.pageSize),
  },
  { additionalProperties: false },
);
export type AccessListQuery = Static<typeof AccessListQuery>;

export const AccessList = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'System ID of the access list' }),
    name: Type.String({ examples: ['Early supporters'] }),
    memberCount: Type.Integer({ minimum: 0, description: 'Number of addresses on the list', examples: [42] }),
    createdAt: { ...DateTime, description: 'When the list was created (ISO 8601 UTC)' },
    icon: Type.String({ description: "URI of the list's icon", examples: ['https://assets.example.com/icons/star.svg'] }),
  },
  { $id: 'AccessList', additionalProperties: false, description: 'An off-chain list of addresses owned by a user.' },
);
export type AccessList = Static<typeof AccessList>;

export const AccessListPage = Type.Object(
  {
    accesslists: Type.Array(ref(AccessList)),
    totalAccesslists: Type.Integer({ minimum: 0, description: 'Number of lists matching the filter, over all pages' }),
  },
  { $id: 'AccessListPage', additionalProperties: false, description: 'One page of access lists and the total.' },
);
export type AccessListPage = Static<typeof AccessListPage>;
