import { Type } from '@sinclair/typebox';
import { TEMPLATE_DISTRIBUTION_CHANNELS } from '../db/schema.js';
import { StringEnum } from './typebox.js';

/**
 * The configuration objects of an action template, as the public API's document gives them, without
 * `$id` so that both the API response (GET /action-templates) and the import record of a template
 * use the one definition: what an import accepts is exactly what the API can serve.
 */

const AddressText = Type.String({
  pattern: '^0x[a-fA-F0-9]{40}$',
  errorMessage: 'must be an address: 0x followed by 40 hexadecimal characters',
});
const text = (description?: string) => Type.String({ errorMessage: 'must be a string', ...(description ? { description } : {}) });
const list = <T extends ReturnType<typeof Type.String>>(item: T) => Type.Array(item, { errorMessage: 'must be a list of strings' });
const IsoDateTime = Type.String({
  pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,6})?Z$',
  errorMessage: 'must be an ISO 8601 UTC date-time such as 2026-01-31T12:00:00.000Z',
  description: 'ISO 8601 UTC date-time',
});
const Url = Type.String({ pattern: '^https?://\\S+$', errorMessage: 'must be an http(s) URL', description: 'An http(s) URL' });
const FreeForm = (description: string) => Type.Object({}, { additionalProperties: true, errorMessage: 'must be an object', description });

/** A contract as the configuration names it. */
const ContractRef = Type.Object(
  {
    ID: text('`eth:<chain_id>:<address>`'),
    contract_name: text(),
    address: AddressText,
    deployment_information: Type.Object(
      { address: AddressText, network_id: text('The chain id, as a string') },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, description: 'A contract the action reads' },
);

const ParameterFilter = Type.Object(
  {
    id: text(),
    parameter: text('`<name>:<index>` of the argument'),
    comparator: text('e.g. `==`, `>`'),
    value: text(),
    tupleParameter: Type.Optional(text('Deprecated: use tupleParameters')),
    tupleParameters: Type.Optional(list(text())),
  },
  { additionalProperties: false, description: 'A check on one argument' },
);

/** How a template's campaign sets the reward of a claim (campaignConfig.reward.type). */
export const REWARD_TYPES = [
  'fixed',
  'usd-pegged',
  'eth-pegged',
  'transaction-value',
  'variable-criteria',
  'pegged-variable-criteria',
  'usd-pegged-variable-criteria',
] as const;

export const TemplateCampaignConfig = Type.Object(
  {
    selectedContract: ContractRef,
    selectedSignatureHash: Type.Optional(text()),
    selectedSignature: text('Readable event or function signature'),
    parameterFilters: Type.Array(ParameterFilter),
    logFilters: Type.Array(
      Type.Object(
        {
          id: text(),
          contract: Type.Union([ContractRef, Type.Null()]),
          signatureHash: Type.Optional(text()),
          signature: Type.Union([text(), Type.Null()]),
          parameters: Type.Array(ParameterFilter),
        },
        { additionalProperties: false },
      ),
    ),
    selectedAbiItem: Type.Optional(FreeForm('ABI fragment of the selected signature')),
    claimantContract: ContractRef,
    claimantSignatureHash: Type.Optional(text()),
    claimantSignature: text(),
    claimantParameterMapping: text('The argument holding the claimant'),
    reward: Type.Object(
      {
        type: Type.Optional(StringEnum(REWARD_TYPES, { errorMessage: `must be one of: ${REWARD_TYPES.join(', ')}` })),
        budget: text(),
        amount: text(),
        rebatePercentage: Type.Number({ errorMessage: 'must be a number' }),
        peg: Type.Optional(Type.Union([AddressText, text()])),
      },
      { additionalProperties: false, description: 'Placeholders for the reward a campaign sets' },
    ),
    criteria: Type.Optional(
      Type.Object(
        {
          signature: text(),
          valueType: Type.Number(),
          fieldIndex: Type.Number(),
          criteriaType: Type.Number(),
          targetContract: text(),
        },
        { additionalProperties: false },
      ),
    ),
    rewardMultiplier: Type.Optional(Type.String({ pattern: '^\\d+$', errorMessage: 'must be decimal digits' })),
    distributionChannel: Type.Optional(
      Type.Array(StringEnum(TEMPLATE_DISTRIBUTION_CHANNELS, { errorMessage: `must be one of: ${TEMPLATE_DISTRIBUTION_CHANNELS.join(', ')}` })),
    ),
  },
  { additionalProperties: false, errorMessage: 'must be a campaign configuration object', description: 'How a campaign made from the template is set up' },
);

export const TemplateNameConfig = Type.Object(
  {
    template: text('Name template'),
    campaignNameGenerator: text('Internal generator id'),
    abiFilters: Type.Array(
      Type.Object(
        {
          signature: text('Padded selector'),
          inputArgIndexes: Type.Array(Type.Number()),
          inputArgValues: Type.Optional(list(text('One per index; "" = any'))),
          targetContract: Type.Optional(text()),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, errorMessage: 'must be a name configuration object', description: 'Auto-naming of campaigns' },
);

export const TemplateBuilderMetadata = Type.Object(
  {
    txHash: Type.Optional(text()),
    description: Type.Optional(text()),
    contactInfo: Type.Optional(text()),
    createdAt: IsoDateTime,
    actionChain: Type.Integer({ minimum: 0, errorMessage: 'must be a chain id' }),
    budgetAccount: Type.Object(
      { chainId: Type.Integer({ minimum: 0, errorMessage: 'must be a chain id' }), address: AddressText },
      { additionalProperties: false },
    ),
    projectUrl: Type.Optional(Url),
    projectIconUrl: Type.Optional(Url),
    isProjectCreator: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, errorMessage: 'must be a builder metadata object', description: 'Who built the template' },
);
