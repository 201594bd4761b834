import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { quoteProblem } from './price-quote.js';
import { type IngestRecord, RECORD_KINDS } from './records.js';
import { trimIso } from './stored-records.js';

/**
 * Turns one parsed line into a record of its kind, or a sentence naming the field and the rule:
 * `claim.amount must be a decimal integer string (at most 78 digits)`. Values come out in the
 * stored form: addresses and hashes lowercase, campaign references canonical.
 */

// `verbose` hands each error its schema, where `errorMessage` holds the words for the rule.
const ajv = new Ajv({ keywords: ['errorMessage'], allErrors: false, strict: false, verbose: true });

const validators = new Map<string, { upsert: ValidateFunction; deletion: ValidateFunction }>(
  RECORD_KINDS.map(({ kind, upsert, deletion }) => [kind, { upsert: ajv.compile(upsert), deletion: ajv.compile(deletion) }]),
);

const KIND_NAMES = RECORD_KINDS.map(({ kind }) => kind).join(', ');

export type Validated = { ok: true; record: IngestRecord; key: string } | { ok: false; error: string };

export function validateRecord(value: unknown): Validated {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: 'a line must be a JSON object with a "kind"' };
  }
  const kind = (value as { kind?: unknown }).kind;
  if (typeof kind !== 'string') return { ok: false, error: `kind is required: one of ${KIND_NAMES}` };
  const pair = validators.get(kind);
  if (!pair) return { ok: false, error: `unknown kind '${kind}': expected one of ${KIND_NAMES}` };
  const isDeletion = (value as { deleted?: unknown }).deleted === true;
  const validate = isDeletion ? pair.deletion : pair.upsert;
  if (!validate(value)) return { ok: false, error: describe(kind, validate.errors?.[0], isDeletion) };
  const record = normalise(value as IngestRecord);
  if (record.kind === 'price') {
    // The rules the price job's quotes are held to (writePrices()), and a time that exists
    // (JavaScript reads 2026-02-31 as 3 March and knows a year 0; PostgreSQL refuses both).
    const at = new Date(record.at);
    const exists = !Number.isNaN(at.getTime()) && at.getUTCFullYear() >= 1 && at.toISOString().slice(0, 19) === record.at.slice(0, 19);
    const problem = quoteProblem({ ...record, at: exists ? at : new Date(Number.NaN), priceUsd: 'priceUsd' in record ? record.priceUsd : '1' });
    if (problem) return { ok: false, error: `price.${problem.field} ${problem.rule}` };
  }
  if (record.kind === 'claim' && 'campaign' in record) {
    const campaignChain = Number(record.campaign.split(':')[0]);
    if (campaignChain !== record.chainId) {
      return { ok: false, error: `claim.chainId ${record.chainId} is not the chain of claim.campaign (${campaignChain})` };
    }
  }
  return { ok: true, record, key: naturalKey(record) };
}

function describe(kind: string, error: ErrorObject | undefined, isDeletion: boolean): string {
  if (!error) return `${kind} is invalid`;
  const path = fieldPath(kind, error.instancePath);
  const custom = (error.parentSchema as { errorMessage?: unknown } | undefined)?.errorMessage;
  switch (error.keyword) {
    case 'required':
      return `${path === kind ? kind : path}.${String(error.params.missingProperty)} is required`;
    case 'additionalProperties':
      return isDeletion && error.instancePath === ''
        ? `${kind}.${String(error.params.additionalProperty)}: a deletion names only the natural key`
        : `${path} has an unknown field '${String(error.params.additionalProperty)}'`;
    default:
      if (typeof custom === 'string') return `${path} ${custom}`;
      return `${path} ${error.message ?? 'is invalid'}`;
  }
}

/** `/incentives/0/params/limit` of a campaign reads `campaign.incentives[0].params.limit`. */
function fieldPath(kind: string, instancePath: string): string {
  return instancePath
    .split('/')
    .slice(1)
    .reduce((path, part) => (/^[0-9]+$/.test(part) ? `${path}[${part}]` : `${path}.${part}`), kind);
}

const lower = <T extends string | null | undefined>(value: T): T => (typeof value === 'string' ? (value.toLowerCase() as T) : value);
const canonicalUint = (value: string) => BigInt(value).toString();

/**
 * `…T12:00:00Z`, `…T12:00:00.0Z` -> `…T12:00:00.000Z`: one text per instant (a price's time is part of
 * its natural key), the form export writes (milliseconds, or microseconds when there are some).
 */
function canonicalTime(time: string): string {
  const [, seconds, fraction = ''] = /^(.*?)(?:\.([0-9]+))?Z$/.exec(time)!;
  return trimIso(`${seconds}.${fraction.padEnd(6, '0')}Z`)!;
}

/** `8453:0xABC…:0012` -> `8453:0xabc…:12`: the form of the stored public ID. */
export function canonicalCampaignRef(ref: string): string {
  const [chain, address, identifier] = ref.split(':') as [string, string, string];
  return `${Number(chain)}:${address.toLowerCase()}:${canonicalUint(identifier)}`;
}

function normalise(record: IngestRecord): IngestRecord {
  switch (record.kind) {
    case 'token':
    case 'contract':
      return { ...record, address: lower(record.address) };
    case 'price':
      return { ...record, address: lower(record.address), at: canonicalTime(record.at) };
    case 'project':
    case 'actionTemplate':
      return 'projectId' in record ? { ...record, id: lower(record.id), projectId: lower(record.projectId) } : { ...record, id: lower(record.id) };
    case 'user':
      return 'id' in record && record.id !== undefined ? { ...record, address: lower(record.address), id: lower(record.id) } : { ...record, address: lower(record.address) };
    case 'knownSignature':
      return { ...record, id: lower(record.id) };
    case 'budgetAccount':
      return 'owner' in record
        ? {
            ...record,
            address: lower(record.address),
            owner: lower(record.owner),
            baseImplementation: lower(record.baseImplementation),
            deployedInstance: lower(record.deployedInstance),
            txHash: lower(record.txHash),
            members: record.members?.map((member) => ({ ...member, address: lower(member.address) })),
          }
        : { ...record, address: lower(record.address) };
    case 'accessList':
      return 'owner' in record
        ? { ...record, id: lower(record.id), owner: lower(record.owner), members: record.members?.map(lower) }
        : { ...record, id: lower(record.id) };
    case 'allowList':
      return 'owner' in record
        ? {
            ...record,
            contractAddress: lower(record.contractAddress),
            owner: lower(record.owner),
            accessListId: lower(record.accessListId),
            addresses: record.addresses?.map(lower),
          }
        : { ...record, contractAddress: lower(record.contractAddress) };
    case 'campaign': {
      const key = { coreAddress: lower(record.coreAddress), identifier: canonicalUint(record.identifier) };
      if (!('owner' in record)) return { ...record, ...key };
      return {
        ...record,
        ...key,
        owner: lower(record.owner),
        creator: lower(record.creator),
        budget: lower(record.budget),
        validator: lower(record.validator),
        action: lower(record.action),
        txHash: lower(record.txHash),
        actionTemplateId: lower(record.actionTemplateId),
        actionTokenAddress: lower(record.actionTokenAddress),
        allowList: record.allowList ? { ...record.allowList, contractAddress: lower(record.allowList.contractAddress) } : record.allowList,
        actionClaimant: record.actionClaimant
          ? { ...record.actionClaimant, targetContract: lower(record.actionClaimant.targetContract) }
          : record.actionClaimant,
        steps: record.steps?.map((step) => ({ ...step, targetContract: lower(step.targetContract), claimant: lower(step.claimant) })),
      };
    }
    case 'claimSignature':
      return 'claimant' in record
        ? { ...record, campaign: canonicalCampaignRef(record.campaign), claimant: lower(record.claimant), referrer: lower(record.referrer) }
        : { ...record, campaign: canonicalCampaignRef(record.campaign) };
    case 'claim':
      return 'claimant' in record
        ? { ...record, txHash: lower(record.txHash), campaign: canonicalCampaignRef(record.campaign), claimant: lower(record.claimant) }
        : { ...record, txHash: lower(record.txHash) };
  }
}

/** The natural key as one string, in the record's normalised form. */
export function naturalKey(record: IngestRecord): string {
  switch (record.kind) {
    case 'token':
    case 'contract':
      return `${record.chainId}:${record.address}`;
    case 'price':
      return `${record.chainId}:${record.address}@${record.at}`;
    case 'project':
    case 'actionTemplate':
    case 'accessList':
    case 'knownSignature':
      return record.id;
    case 'budgetAccount':
      return `${record.chainId}:${record.address}`;
    case 'user':
      return record.address;
    case 'allowList':
      return `${record.chainId}:${record.contractAddress}`;
    case 'campaign':
      return `${record.chainId}:${record.coreAddress}:${record.identifier}`;
    case 'claimSignature':
      return `${record.campaign} ${record.signature}`;
    case 'claim':
      return `${record.chainId}:${record.txHash}:${record.logIndex}`;
  }
}

