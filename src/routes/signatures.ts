import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Hex } from 'viem';
import { HttpError } from '../errors.js';
import { ErrorResponse } from '../schemas/common.js';
import { IssuedSignatureList, REFUSAL_CODES, SIGNATURES_EXAMPLE, SignatureError, SignaturesQuery } from '../schemas/signatures.js';
import { settingDefault } from '../setting-defaults.js';
import { ref } from '../schemas/typebox.js';
import type { ClaimSigning } from '../services/claim-signing.js';
import { normaliseCampaignId } from './campaign-filter-input.js';

export interface SignatureRoutesOptions {
  signatures: ClaimSigning;
  /** Requests per client IP per window for this operation alone (each reads the chain); 0 = the global budget only. */
  rateLimitMax: number;
  rateLimitWindowMs: number;
}

const refusalList = Object.entries(REFUSAL_CODES)
  .map(([code, meaning]) => `\`${code}\`: ${meaning}.`)
  .join(' ');

/** GET /signatures: the claim signatures a transaction earns. */
export const signatureRoutes: FastifyPluginAsyncTypebox<SignatureRoutesOptions> = async (app, { signatures, rateLimitMax, rateLimitWindowMs }) => {
  app.get(
    '/signatures',
    {
      schema: {
        operationId: 'getSignatures',
        tags: ['reward-kit'],
        summary: 'Sign the claims a transaction earns',
        description:
          "Checks the transaction against the campaign on the campaign's chain: mined, succeeded, after the campaign's creation block, " +
          `as many blocks deep as the operator requires (${settingDefault('SIGNATURE_CONFIRMATIONS')} by default), every action step met (the protocol's EventAction semantics), the claimant read as the action ` +
          "says and allowed by the campaign's allow list; then, per incentive, not yet claimed by the claimant and with claims and budget left. " +
          'Answers one signature per incentive the transaction earns, signed by the first of the service\'s keys the campaign\'s validator trusts. ' +
          'The same transaction gets the same answer: issued signatures are stored and served again (also by GET /signatures/claimable/{address}). ' +
          'A signature cannot be taken back: if a reorganisation drops the transaction later, the signature still claims. ' +
          `A transaction that earns nothing is a 400 with \`{ "error": { "message", "code" } }\`; the codes: ${refusalList}`,
        querystring: SignaturesQuery,
        response: {
          200: { ...ref(IssuedSignatureList), description: 'One signature per incentive the transaction earns', examples: [SIGNATURES_EXAMPLE] },
          400: {
            ...ref(SignatureError),
            description: 'A malformed query (`{ "error": "..." }`), or a transaction that earns no signature (`{ "error": { "message", "code" } }`; SignatureRefusal has an example of each code)',
          },
          404: { ...ref(ErrorResponse), description: 'No campaign has this ID' },
          410: { ...ref(ErrorResponse), description: 'The campaign is not active (not started, ended, or nothing left to pay)' },
          503: { ...ref(ErrorResponse), description: 'The chain or the database could not be read, or the service has no signing key; retry after Retry-After seconds' },
          504: { ...ref(ErrorResponse), description: 'The query took longer than its time budget' },
        },
      },
      config: rateLimitMax > 0 ? { rateLimit: { max: rateLimitMax, timeWindow: rateLimitWindowMs, errorResponseBuilder: tooMany(rateLimitMax, rateLimitWindowMs) } } : {},
    },
    async (request, reply) => {
      const { campaignId, txHash, claimData } = request.query;
      const issued = await signatures.issue({ campaignId: normaliseCampaignId(campaignId), txHash: txHash as Hex, claimData: claimData as Hex | undefined });
      // Each answer is decided now, against the chain: not for a shared cache.
      void reply.header('cache-control', 'no-store');
      return issued;
    },
  );
};

const tooMany = (max: number, windowMs: number) => (_request: unknown, { after }: { after: string }) =>
  new HttpError(429, `rate limit of GET /signatures exceeded: at most ${max} requests per ${windowMs / 1000} s; retry in ${after}`);
