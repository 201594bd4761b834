import { type Static, Type } from '@sinclair/typebox';
import { Address, ChainId, PaginationQuery } from './common.js';
import { ref, StringEnum } from './typebox.js';

/** `GET /explore/contracts`: the public API's contract entries (docs/public-api.md). */

export const CONTRACT_SORTS = ['most-completions', 'total-spend', 'recently-deployed'] as const;
export const TIME_PERIODS = ['6h', '24h', '7d'] as const;

export const ContractEntry = Type.Object(
  {
    chainId: ChainId,
    address: ref(Address),
    name: Type.String({ description: 'Name in the contract registry' }),
    stats: Type.Object(
      {
        campaignCount: Type.Integer({ minimum: 0, description: 'Campaigns whose action steps target the contract' }),
        totalClaims: Type.Integer({ minimum: 0, description: 'Claims of those campaigns in the time period' }),
        totalAmountClaimedUsd: Type.Number({ minimum: 0, description: 'USD value of those claims' }),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'ContractEntry', additionalProperties: false, description: 'A named contract that campaigns target.' },
);
export type ContractEntry = Static<typeof ContractEntry>;

export const ContractList = Type.Array(ref(ContractEntry), { $id: 'ContractList' });
export type ContractList = Static<typeof ContractList>;

export const ContractsQuery = Type.Object(
  {
    ...PaginationQuery,
    sortBy: Type.Optional(
      StringEnum(CONTRACT_SORTS, {
        default: 'most-completions',
        description: 'most-completions: claims in the period; total-spend: USD in the period; recently-deployed: newest campaign',
      }),
    ),
    timePeriod: Type.Optional(StringEnum(TIME_PERIODS, { default: '7d', description: 'The period the claim stats cover' })),
    actionChainIds: Type.Optional(
      Type.Array(Type.String({ pattern: '^[0-9]{1,10}$', errorMessage: 'must be a chain id: decimal digits' }), {
        description: 'Only contracts on these chains, comma-separated',
        examples: [['8453', '10']],
      }),
    ),
    userAddress: Type.Optional(
      Type.Unsafe<string>({ ...ref(Address), description: 'Count only campaigns deployed by this address' }),
    ),
  },
  { additionalProperties: false },
);
export type ContractsQuery = Static<typeof ContractsQuery>;
