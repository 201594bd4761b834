import { LRUCache } from 'lru-cache';
import { type Address, decodeAbiParameters, encodeAbiParameters, type Hex, zeroAddress, zeroHash } from 'viem';
import { type AbiLookup, checkActionSteps, criteriaAmount, deriveClaimant } from '../chain/action-steps.js';
import { type ClaimSigner, signClaimPayload } from '../chain/claim-payload.js';
import { ChainUnavailableError, createTransactionSource, type ObservedTransaction, type TransactionSource } from '../chain/transaction-source.js';
import { HttpError, RETRY_AFTER_SECONDS } from '../errors.js';
import { type IssuedSignatureRow, recordIssuedSignatures } from '../ingest/issued-signatures.js';
import type { Database } from '../db/client.js';
import { causes } from '../db/errors.js';
import { loadSignerKeys } from '../chain/claim-signers.js';
import { parseTargets } from '../chain/targets.js';
import { type Config, ConfigError } from '../config.js';
import type { IssuedSignature, SignaturesRepository, SigningCampaign, SigningIncentive } from '../repositories/signatures.repository.js';
import { noSigningKey, signableCampaign } from './signable-campaign.js';
import { pegToAsset } from './peg-conversion.js';
import type { Logger } from 'pino';
import type { RefusalCode } from '../schemas/signatures.js';

/**
 * GET /signatures: decides whether a transaction earned a campaign's incentives, and signs the
 * claims it earned. The checks, in order (each failing one is a refusal with its code):
 *   1. the campaign exists (404) and is active (410); the service has a key its validator trusts;
 *   2. the transaction is on the campaign's chain, mined, succeeded, after the campaign's creation
 *      block, and SIGNATURE_CONFIRMATIONS deep;
 *   3. every action step holds (src/chain/action-steps.ts, the SDK's EventAction semantics);
 *   4. the claimant, read as the action says, may claim under the allow list;
 *   5. per incentive: not claimed by the claimant, limit and balance left, and its incentive data
 *      (what it pays) known: a pegged incentive's amount is named in its peg token and paid in its
 *      asset, at both tokens' prices at the transaction's block time.
 * The signatures of the incentives that pass are stored and answered; with none, the refusal of
 * the first incentive, its message naming every incentive's reason. What was issued for a
 * transaction is answered from storage next time, without reading the chain.
 */

export interface ClaimSignaturesOptions {
  repository: SignaturesRepository;
  source: TransactionSource;
  signers: readonly ClaimSigner[];
  record: (rows: IssuedSignatureRow[]) => Promise<void>;
  confirmations: number;
  callerAmounts: boolean;
  clock: () => Date;
  logger: Pick<Logger, 'warn'>;
  /** How long a refusal is kept and given again without a new check (not_final and price_unknown are never kept: a block or a price turns them around). */
  refusalTtlMs?: number;
  /** How long a validator's answer to "do you trust this key?" is kept. */
  trustTtlMs?: number;
}

/** A campaign's validator, on its chain. */
export type ValidatorRef = Pick<SigningCampaign, 'chainId' | 'validator'>;

export interface ValidatorCheck {
  trusting: number;
  refusing: ValidatorRef[];
  unreadable: number;
}

export interface SignatureRequest {
  campaignId: string;
  txHash: Hex;
  claimData?: Hex;
}

export class SignatureRefused extends HttpError {
  constructor(
    readonly refusal: RefusalCode,
    message: string,
    headers: Record<string, string> = {},
  ) {
    super(400, message, headers, refusal);
  }
}

const refuse = (code: RefusalCode, message: string) => new SignatureRefused(code, message);

/** Variants that pay a fixed reward per claim: their incentive data is the zero word (the SDK's buildClaimData). */
const FIXED_REWARD = new Set(['ERC20Incentive', 'PointsIncentive', 'AllowListIncentive', 'CGDAIncentive']);
const CRITERIA = new Set(['ERC20VariableCriteriaIncentive', 'ERC20VariableCriteriaIncentiveV2', 'ERC20PeggedVariableCriteriaIncentive', 'ERC20PeggedVariableCriteriaIncentiveV2']);
/** Variants whose amount is named in a peg token and paid in their asset. */
const PEGGED = new Set(['ERC20PeggedIncentive', 'ERC20PeggedVariableCriteriaIncentive', 'ERC20PeggedVariableCriteriaIncentiveV2']);

type IncentiveOutcome = { data: Hex } | { code: RefusalCode; message: string };

/** The transaction's block time, read once a pegged incentive needs it. */
type BlockTime = () => Promise<Date>;

const amountData = (amount: bigint): Hex => encodeAbiParameters([{ type: 'uint256' }], [amount]);

export class ClaimSignatures {
  private readonly trust: LRUCache<string, boolean>;
  /** Refusals of the last moments: a client that asks again at once does not cost RPC calls again. */
  private readonly refusals: LRUCache<string, SignatureRefused>;

  constructor(private readonly options: ClaimSignaturesOptions) {
    this.trust = new LRUCache({ max: 10_000, ttl: options.trustTtlMs ?? 60_000 });
    this.refusals = new LRUCache({ max: 10_000, ttl: options.refusalTtlMs ?? 10_000 });
  }

  /** The addresses the service signs as: what an operator makes the validators trust. */
  get signerAddresses(): string[] {
    return this.options.signers.map((signer) => signer.address);
  }

  /** Whether a key is configured: without one every request is a 503. */
  get canSign(): boolean {
    return this.options.signers.length > 0;
  }

  async issue(request: SignatureRequest): Promise<IssuedSignature[]> {
    const key = `${request.campaignId}|${request.txHash.toLowerCase()}|${request.claimData ?? ''}`;
    const refused = this.refusals.get(key);
    if (refused !== undefined) throw refused;
    try {
      return await this.check(request);
    } catch (error) {
      if (error instanceof SignatureRefused && !ASK_AGAIN.has(error.refusal)) this.refusals.set(key, error);
      if (!(error instanceof ChainUnavailableError)) throw error;
      this.options.logger.warn({ err: error.cause, chainId: error.chainId }, 'GET /signatures could not read the chain');
      throw new HttpError(503, `chain ${error.chainId} could not be read this time; retry shortly`, RETRY_LATER);
    }
  }

  private async check(request: SignatureRequest): Promise<IssuedSignature[]> {
    const { repository } = this.options;
    const campaign = await signableCampaign(repository, request.campaignId, this.options.clock());
    if (!this.canSign) throw noSigningKey();
    const txHash = request.txHash.toLowerCase() as Hex;
    const issued = await repository.issuedFor(campaign.key, txHash);
    if (issued.length > 0) return issued;

    const signer = await this.trustedSigner(campaign);
    const transaction = await this.finalTransaction(campaign, txHash);
    const abiFor = await this.abiLookup(campaign);
    const verdict = checkActionSteps(campaign.steps, transaction, abiFor);
    if (!verdict.met) throw refuse(verdict.kind === 'filter' ? 'criteria_not_met' : 'action_not_done', verdict.reason);
    const claimant = campaign.actionClaimant === null ? transaction.from : deriveClaimant(campaign.actionClaimant, transaction, abiFor);
    if (claimant === undefined) throw refuse('claimant_not_found', "the action's claimant field could not be read from the transaction");
    const claimantLower = claimant.toLowerCase() as Address;
    const standing = await repository.claimantStanding(campaign.key, claimantLower);
    if (!standing.allowed) throw refuse('not_allowed', `${claimantLower} may not claim under the campaign's allow list`);

    const earned: { incentive: SigningIncentive; data: Hex }[] = [];
    const refusals: { incentive: SigningIncentive; code: RefusalCode; message: string }[] = [];
    let blockTime: Promise<Date> | undefined;
    const readBlockTime: BlockTime = () => (blockTime ??= this.options.source.blockTime(transaction.chainId, transaction.blockNumber));
    for (const incentive of campaign.incentives) {
      const outcome = await this.incentiveData(campaign, incentive, standing.claimedPositions, transaction, abiFor, request.claimData, readBlockTime);
      if ('code' in outcome) refusals.push({ incentive, ...outcome });
      else earned.push({ incentive, data: outcome.data });
    }
    if (earned.length === 0) {
      const [first] = refusals;
      // A campaign without incentives has nothing to pay: it is not active.
      if (first === undefined) throw new HttpError(410, `campaign ${request.campaignId} is not active`);
      const message = refusals.map(({ incentive, message }) => `incentive ${incentive.incentiveId}: ${message}`).join('; ');
      // A price the price job has not fetched yet may come: worth asking again.
      throw new SignatureRefused(first.code, message, ASK_AGAIN.has(first.code) ? RETRY_LATER : {});
    }

    const answers: IssuedSignature[] = [];
    for (const { incentive, data } of earned) {
      const signature = await signClaimPayload(signer, {
        chainId: campaign.chainId,
        validator: campaign.validator as Address,
        boostId: BigInt(campaign.boostId),
        incentiveQuantity: campaign.incentiveQuantity,
        claimant: claimantLower,
        incentiveData: data,
      });
      answers.push({ incentiveId: incentive.incentiveId, signature, claimant: claimantLower, referrer: zeroAddress });
    }
    try {
      await this.options.record(answers.map((answer) => ({ ...answer, campaignKey: campaign.key, txHash })));
    } catch (error) {
      // A read-only database role (docs/operations.md): an operator's setting, not a fault of the request.
      if (![...causes(error)].some((cause) => cause.code === INSUFFICIENT_PRIVILEGE)) throw error;
      throw new HttpError(503, 'this service cannot store the signatures it issues: its database role may not write', RETRY_LATER);
    }
    return answers;
  }

  /**
   * Whether each of these validators trusts one of the service's keys, asked as a request asks (and
   * kept as long): the validators that trust none, and how many could not be asked (a chain the
   * service does not read, or cannot read now).
   */
  async checkValidators(validators: readonly ValidatorRef[]): Promise<ValidatorCheck> {
    const check: ValidatorCheck = { trusting: 0, refusing: [], unreadable: 0 };
    const readable = new Set(this.options.source.chainIds);
    for (const validator of validators) {
      if (!readable.has(validator.chainId)) {
        check.unreadable++;
        continue;
      }
      try {
        await this.trustedSigner(validator);
        check.trusting++;
      } catch (error) {
        if (error instanceof SignatureRefused) check.refusing.push(validator);
        else if (error instanceof ChainUnavailableError) check.unreadable++;
        else throw error;
      }
    }
    return check;
  }

  /** The first of the service's keys the validator trusts, or the refusal that says none is. */
  private async trustedSigner(campaign: ValidatorRef): Promise<ClaimSigner> {
    for (const signer of this.options.signers) {
      const key = `${campaign.chainId}:${campaign.validator}:${signer.address}`;
      let trusted = this.trust.get(key);
      if (trusted === undefined) {
        trusted = await this.options.source.trustsSigner(campaign.chainId, campaign.validator as Address, signer.address);
        this.trust.set(key, trusted);
      }
      if (trusted) return signer;
    }
    throw refuse(
      'validator_does_not_trust_this_signer',
      `the campaign's validator ${campaign.validator} trusts none of this service's keys (${this.options.signers.map((signer) => signer.address).join(', ')})`,
    );
  }

  private async finalTransaction(campaign: SigningCampaign, txHash: Hex): Promise<ObservedTransaction> {
    const { source, confirmations } = this.options;
    const lookup = await source.lookup(campaign.chainId, txHash);
    if (lookup.found === 'pending') throw new SignatureRefused('not_final', 'the transaction is not mined yet; ask again once it is', RETRY_LATER);
    if (lookup.found === 'none') {
      for (const chainId of source.chainIds.filter((id) => id !== campaign.chainId)) {
        const elsewhere = await source.lookup(chainId, txHash).catch((error: unknown) => {
          // Another chain that cannot be read says nothing about this campaign's.
          if (error instanceof ChainUnavailableError) return undefined;
          throw error;
        });
        if (elsewhere !== undefined && elsewhere.found !== 'none') {
          throw refuse('wrong_chain', `the transaction is on chain ${chainId}; the campaign is on chain ${campaign.chainId}`);
        }
      }
      throw refuse('tx_not_found', `chain ${campaign.chainId} has no transaction ${txHash}`);
    }
    const { transaction } = lookup;
    if (transaction.status !== 'success') throw refuse('tx_failed', `the transaction reverted (block ${transaction.blockNumber})`);
    if (transaction.blockNumber <= BigInt(campaign.blockNumber)) {
      throw refuse('before_campaign', `the transaction is in block ${transaction.blockNumber}; the campaign was created in block ${campaign.blockNumber}`);
    }
    const depth = transaction.head - transaction.blockNumber;
    if (depth < BigInt(confirmations)) {
      throw new SignatureRefused(
        'not_final',
        `the transaction is ${depth} blocks deep; it is signed for once it is ${confirmations} deep`,
        RETRY_LATER,
      );
    }
    return transaction;
  }

  /** The registry's ABI items for every signature the campaign's steps, claimant and criteria name. */
  private async abiLookup(campaign: SigningCampaign): Promise<AbiLookup> {
    // The registry's ids are 32 bytes: event topics, and selectors zero-padded on the left, as the steps name them.
    const padded = (signature: string) => `0x${signature.toLowerCase().slice(2).padStart(64, '0')}`;
    const signatures = [
      ...campaign.steps.map((step) => step.signature),
      ...(campaign.actionClaimant ? [campaign.actionClaimant.signature] : []),
      ...campaign.incentives.flatMap((incentive) => {
        const criteria = incentive.params.criteria as { signature?: string } | undefined;
        return criteria?.signature ? [criteria.signature] : [];
      }),
    ];
    const items = await this.options.repository.abiItems([...new Set(signatures.map(padded))]);
    return (signature) => items.get(padded(signature)) as ReturnType<AbiLookup>;
  }

  /** What one incentive pays for this transaction, as its incentive data, or why it pays nothing. */
  private async incentiveData(
    campaign: SigningCampaign,
    incentive: SigningIncentive,
    claimed: number[],
    transaction: ObservedTransaction,
    abiFor: AbiLookup,
    claimData: Hex | undefined,
    blockTime: BlockTime,
  ): Promise<IncentiveOutcome> {
    if (claimed.includes(incentive.position)) return { code: 'already_claimed', message: 'the claimant has claimed it' };
    if (incentive.claimLimit !== null && BigInt(incentive.totalClaims) >= BigInt(incentive.claimLimit)) {
      return { code: 'limit_reached', message: `it has paid its ${incentive.claimLimit} claims` };
    }
    // What it can still pay: its budget (what it holds, once the indexer has read it, plus what it paid) less what it paid.
    const left = incentive.totalBudget === null ? null : BigInt(incentive.totalBudget) - BigInt(incentive.totalAmountClaimed);
    if (left !== null && left <= 0n) return { code: 'limit_reached', message: 'it has nothing left to pay' };
    const reward = incentive.type === 'ERC20Incentive' && incentive.params.strategy === 0 ? BigInt(incentive.params.reward as string) : null;
    if (left !== null && reward !== null && left < reward) return { code: 'limit_reached', message: `it has ${left} left, less than its reward of ${reward}` };
    if (FIXED_REWARD.has(incentive.type)) return { data: zeroHash };
    if (incentive.type === 'ERC20PeggedIncentive') {
      // It pays the signed amount of its asset: its reward, named in the peg, at the prices of the transaction's time.
      const paid = await this.pegged(campaign, incentive, BigInt(incentive.params.reward as string), blockTime);
      if ('code' in paid) return paid;
      if (paid.amount === 0n) return { code: 'criteria_not_met', message: 'at the prices of the transaction\'s time its reward is worth less than one unit of its asset' };
      if (left !== null && left < paid.amount) return { code: 'limit_reached', message: `it has ${left} left, less than the ${paid.amount} its reward is worth` };
      return { data: amountData(paid.amount) };
    }
    if (CRITERIA.has(incentive.type)) {
      const amount = criteriaAmount(incentive.params.criteria as Parameters<typeof criteriaAmount>[0], transaction, abiFor);
      if (amount === undefined || amount === 0n) return { code: 'criteria_not_met', message: "its criteria find no amount in the transaction" };
      if (!PEGGED.has(incentive.type)) return { data: amountData(amount) };
      // The criteria's amount is named in the peg; the contract multiplies what is signed by its reward (per unit, 18 decimals) and pays its asset.
      const paid = await this.pegged(campaign, incentive, amount, blockTime);
      if ('code' in paid) return paid;
      if (paid.amount === 0n) return { code: 'criteria_not_met', message: 'at the prices of the transaction\'s time the amount its criteria find is worth less than one unit of its asset' };
      return { data: amountData(paid.amount) };
    }
    if (incentive.type === 'ERC20VariableIncentive') {
      if (!this.options.callerAmounts) {
        return { code: 'caller_amount_not_allowed', message: 'it pays an amount the caller chooses, which this service does not sign for' };
      }
      if (claimData === undefined) return { code: 'caller_amount_not_allowed', message: 'it needs the amount in claimData (an ABI-encoded uint256)' };
      let amount: bigint;
      try {
        [amount] = decodeAbiParameters([{ type: 'uint256' }], claimData);
      } catch {
        throw new HttpError(400, 'claimData must be an ABI-encoded uint256 amount');
      }
      if (amount === 0n) throw new HttpError(400, 'claimData must be an amount above 0');
      if (left !== null && amount > left) return { code: 'limit_reached', message: `it has ${left} left, less than the ${amount} asked` };
      return { data: amountData(amount) };
    }
    // Every variant the indexer and the import take is handled above.
    throw new Error(`GET /signatures has no incentive data for the variant ${incentive.type}`);
  }

  /** `amount` of a pegged incentive's peg as an amount of its asset, at both prices of the transaction's block time; the same when the peg is the asset. */
  private async pegged(
    campaign: SigningCampaign,
    incentive: SigningIncentive,
    amount: bigint,
    blockTime: BlockTime,
  ): Promise<{ amount: bigint } | { code: RefusalCode; message: string }> {
    const peg = String(incentive.params.peg).toLowerCase();
    const asset = String(incentive.params.asset).toLowerCase();
    if (peg === asset) return { amount };
    const at = await blockTime();
    const [pegToken, assetToken] = await this.options.repository.pricesAt(campaign.chainId, [peg, asset], at);
    for (const [name, address, token] of [['peg', peg, pegToken!], ['asset', asset, assetToken!]] as const) {
      if (token.priceUsd === null || token.decimals === null) {
        return {
          code: 'price_unknown',
          message: `its ${name} ${address} has no ${token.priceUsd === null ? `price from the two hours before the transaction's time (${at.toISOString()})` : 'known decimals'}`,
        };
      }
    }
    return { amount: pegToAsset(amount, { priceUsd: pegToken!.priceUsd!, decimals: pegToken!.decimals! }, { priceUsd: assetToken!.priceUsd!, decimals: assetToken!.decimals! }) };
  }
}

const RETRY_LATER = { 'retry-after': String(RETRY_AFTER_SECONDS) };

/** Refusals that a block or a price fetched later can turn around: never kept, answered with Retry-After. */
const ASK_AGAIN: ReadonlySet<RefusalCode> = new Set(['not_final', 'price_unknown']);

/** SQLSTATE 42501: the role lacks a privilege. */
const INSUFFICIENT_PRIVILEGE = '42501';

/** The settings ClaimSignatures is built from. */
export type ClaimSignaturesConfig = Pick<
  Config,
  'SIGNER_PRIVATE_KEY' | 'SIGNER_KEY_FILE' | 'CHAIN_RPC_URLS' | 'INDEXER_CORES' | 'SIGNATURE_CONFIRMATIONS' | 'SIGNATURE_CALLER_AMOUNTS' | 'SIGNATURE_RPC_TIMEOUT_MS'
>;

/** The service as the app builds it from the settings: the keys, the chains of CHAIN_RPC_URLS, storage through the write path. */
export function createClaimSignatures(
  config: ClaimSignaturesConfig,
  dependencies: { repository: SignaturesRepository; write: Database; clock: () => Date; logger: Pick<Logger, 'warn' | 'info'> },
): ClaimSignatures {
  const { signers, problems } = loadSignerKeys(config);
  // loadConfig has reported these already; a key file can change between the two reads.
  if (problems.length > 0) throw new ConfigError(problems);
  // The addresses, never the keys: what an operator makes the campaigns' validators trust.
  if (signers.length > 0) dependencies.logger.info({ signers: signers.map((signer) => signer.address) }, 'GET /signatures signs as these addresses');
  const urls = new Map(parseTargets(config.CHAIN_RPC_URLS, config.INDEXER_CORES).targets.map((target) => [target.chainId, target.rpcUrl]));
  return new ClaimSignatures({
    repository: dependencies.repository,
    source: createTransactionSource(urls, config.SIGNATURE_RPC_TIMEOUT_MS),
    signers,
    record: (rows) => recordIssuedSignatures(dependencies.write, rows),
    confirmations: config.SIGNATURE_CONFIRMATIONS,
    callerAmounts: config.SIGNATURE_CALLER_AMOUNTS,
    clock: dependencies.clock,
    logger: dependencies.logger,
  });
}
