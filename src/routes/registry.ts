import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { badRequest, notFound } from '../errors.js';
import { ErrorResponse, MAX_CHAIN_ID, pageRequest } from '../schemas/common.js';
import {
  ActionTemplatesQuery,
  AddressParams,
  BlocklistParams,
  BlocklistStatus,
  BudgetAccount,
  BudgetAccountList,
  BudgetAccountParams,
  BudgetAccountsQuery,
  ClaimableSignatureList,
  KnownSignaturePage,
  KnownSignaturesQuery,
  TemplateItem,
  TemplateList,
  TemplateParams,
} from '../schemas/registry.js';
import {
  BUDGET_ACCOUNT_EXAMPLE,
  BUDGET_ACCOUNT_LIST_EXAMPLE,
  CLAIMABLE_SIGNATURES_EXAMPLE,
  KNOWN_SIGNATURES_EXAMPLE,
  TEMPLATE_EXAMPLE,
} from '../schemas/registry-examples.js';
import { ref } from '../schemas/typebox.js';
import { PUBLIC_ERROR_RESPONSES } from './error-responses.js';

/**
 * The registry operations of the public API (docs/public-api.md): known signatures, an address's
 * claimable signatures, the token blocklist, action templates and budget accounts.
 */
export const registryRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { registry, actionTemplates, budgetAccounts } = app.repositories;

  app.get(
    '/known-signatures',
    {
      schema: {
        operationId: 'getKnownSignatures',
        tags: ['registry'],
        summary: 'Find event and function signatures used in campaign configurations',
        description: 'Known event topics and function selectors (zero-padded to 32 bytes), in ID order; `count` counts all pages.',
        querystring: KnownSignaturesQuery,
        response: {
          200: { ...ref(KnownSignaturePage), description: 'One page of known signatures', examples: [KNOWN_SIGNATURES_EXAMPLE] },
          ...PUBLIC_ERROR_RESPONSES,
        },
      },
      config: { publicCache: true },
    },
    async (request) => registry.listKnownSignatures(pageRequest(request.query)),
  );

  app.get(
    '/signatures/claimable/:address',
    {
      schema: {
        operationId: 'getClaimableSignatures',
        tags: ['reward-kit'],
        summary: 'Get claimable signatures for an address',
        description: "The address's unused claim signatures on active campaigns, newest first, at most 100.",
        params: AddressParams,
        response: {
          200: { ...ref(ClaimableSignatureList), description: 'Unused claim signatures', examples: [CLAIMABLE_SIGNATURES_EXAMPLE] },
          ...PUBLIC_ERROR_RESPONSES,
        },
      },
      config: { publicCache: true },
    },
    async (request) => registry.listClaimableSignatures(request.params.address.toLowerCase(), app.clock()),
  );

  app.get(
    '/blocklist/:chainId/:tokenAddress',
    {
      schema: {
        operationId: 'getBlocklist',
        tags: ['registry'],
        summary: 'Whether a token is blocked on a chain',
        description: 'True for a token the operator marked blocked on that chain (never a whitelisted one); an unknown token is not blocked.',
        params: BlocklistParams,
        response: {
          200: { ...ref(BlocklistStatus), description: 'The token\'s blocklist status', examples: [{ isBlocked: false }] },
          ...PUBLIC_ERROR_RESPONSES,
        },
      },
      config: { publicCache: true },
    },
    async (request) => {
      const chainId = Number(request.params.chainId);
      if (chainId > MAX_CHAIN_ID) throw badRequest(`chainId must be <= ${MAX_CHAIN_ID}`);
      return { isBlocked: await registry.isTokenBlocked(chainId, request.params.tokenAddress.toLowerCase()) };
    },
  );

  app.get(
    '/action-templates',
    {
      schema: {
        operationId: 'getActionTemplates',
        tags: ['action-templates'],
        summary: 'Get all action templates',
        description:
          'Action templates with their projects, in ID order. By default only active ones (`onlyActive=true`), every review ' +
          'status; `address` keeps the templates built from that budget account.',
        querystring: ActionTemplatesQuery,
        response: {
          200: { ...ref(TemplateList), description: 'Matching action templates', examples: [[TEMPLATE_EXAMPLE]] },
          ...PUBLIC_ERROR_RESPONSES,
        },
      },
      config: { publicCache: true },
    },
    async (request) => {
      const { query } = request;
      return actionTemplates.listTemplates(
        { budgetAccount: query.address?.toLowerCase(), onlyActive: query.onlyActive ?? true, statuses: query.status },
        pageRequest(query),
      );
    },
  );

  app.get(
    '/action-templates/:id',
    {
      schema: {
        operationId: 'getActionTemplate',
        tags: ['action-templates'],
        summary: 'Get an action template by its ID',
        description: 'One action template by its UUID, whatever its status.',
        params: TemplateParams,
        response: {
          200: { ...ref(TemplateItem), examples: [TEMPLATE_EXAMPLE] },
          ...PUBLIC_ERROR_RESPONSES,
          404: { ...ref(ErrorResponse), description: 'No action template has this ID' },
        },
      },
      config: { publicCache: true },
    },
    async (request) => {
      const template = await actionTemplates.findTemplate(request.params.id);
      if (template === null) throw notFound(`action template ${request.params.id} not found`);
      return template;
    },
  );

  app.get(
    '/budget-accounts',
    {
      schema: {
        operationId: 'getBudgetAccounts',
        tags: ['budget-accounts'],
        summary: 'Get budget accounts',
        description:
          'Budget registry entries with their members, by chain id then address; hidden ones are left out. E-mail ' +
          'addresses are never served.',
        querystring: BudgetAccountsQuery,
        response: {
          200: { ...ref(BudgetAccountList), description: 'One page of budget accounts', examples: [BUDGET_ACCOUNT_LIST_EXAMPLE] },
          ...PUBLIC_ERROR_RESPONSES,
        },
      },
      config: { publicCache: true },
    },
    async (request) => {
      const { query } = request;
      return budgetAccounts.listAccounts(
        { chainId: query.chainId, member: query.member?.toLowerCase(), owner: query.owner?.toLowerCase() },
        pageRequest(query),
      );
    },
  );

  app.get(
    '/budget-accounts/:id',
    {
      schema: {
        operationId: 'getBudgetAccount',
        tags: ['budget-accounts'],
        summary: 'Get a budget account by its ID',
        description: 'One registry entry by `<chain_id>:<address>`, hidden or not. `ownerEmail` and member e-mails are always null.',
        params: BudgetAccountParams,
        response: {
          200: { ...ref(BudgetAccount), examples: [BUDGET_ACCOUNT_EXAMPLE] },
          ...PUBLIC_ERROR_RESPONSES,
          404: { ...ref(ErrorResponse), description: 'No budget account has this ID' },
        },
      },
      config: { publicCache: true },
    },
    async (request) => {
      const [chain = '', address = ''] = request.params.id.split(':');
      const chainId = Number(chain);
      const id = `${chainId}:${address.toLowerCase()}`;
      const account = chainId > MAX_CHAIN_ID ? null : await budgetAccounts.findAccount(chainId, address.toLowerCase());
      if (account === null) throw notFound(`budget account ${id} not found`);
      return account;
    },
  );
};
