import {
  MEMBER_STATUSES,
  REGISTRY_TYPES,
  TEMPLATE_DISTRIBUTION_CHANNELS,
  TEMPLATE_STATUSES,
} from '../db/schema.js';
import { REWARD_TYPES } from '../schemas/template-config.js';
import { CHAINS, EVENT_SIGNATURES, FUNCTION_SIGNATURES } from './catalog.js';
import { keccak256, toBytes } from 'viem';
import type { Random } from './random.js';
import { capitalize, DEMO_USER_ADDRESS, HOUR_MS, type Reference } from './reference.js';
import type { Rows } from './rows.js';

/**
 * The registry data the public API's other operations read: known signatures, the action
 * templates' full configuration, and the budget registry with its members. Pure, like the rest
 * of the generator; drawn from its own random streams so the campaigns and claims stay as they were.
 */

/** `Transfer(address,address,uint256)` -> its ABI fragment (inputs unnamed but for their position). */
function abiItem(signature: string, type: 'event' | 'function'): Record<string, unknown> {
  const name = signature.slice(0, signature.indexOf('('));
  const types = signature.slice(signature.indexOf('(') + 1, -1).split(',').filter(Boolean);
  const inputs = types.map((inputType, index) => ({
    name: `arg${index}`,
    type: inputType,
    ...(type === 'event' ? { indexed: index < 2 && inputType === 'address' } : { internalType: inputType }),
  }));
  return type === 'event'
    ? { type, name, inputs, anonymous: false }
    : { type, name, inputs, outputs: [], stateMutability: 'nonpayable' };
}

/** Event topic, or the 4-byte selector zero-padded on the left to 32 bytes (the public API's form). */
export function signatureId(signature: string, type: 'event' | 'function'): string {
  const hash = keccak256(toBytes(signature));
  return type === 'event' ? hash : `0x${'0'.repeat(56)}${hash.slice(2, 10)}`;
}

/** Every signature the catalog's actions watch, with its ABI fragment on all but a few. */
export function knownSignatureRows(): Rows['knownSignatures'] {
  const rows = [
    ...EVENT_SIGNATURES.map((signature) => ({ signature, type: 'event' as const })),
    ...FUNCTION_SIGNATURES.map((signature) => ({ signature, type: 'function' as const })),
  ].map(({ signature, type }, index) => ({
    id: signatureId(signature, type),
    textSignature: signature,
    // Some sources know only the text of a signature: the API leaves abiItem out then.
    abiItem: index % 5 === 4 ? null : abiItem(signature, type),
    signatureType: type,
  }));
  return rows;
}

/** A contract as the template configuration names it (ContractRef in src/schemas/template-config.ts). */
function contractRef(chainId: number, address: string, name: string) {
  return {
    ID: `eth:${chainId}:${address}`,
    contract_name: name,
    address,
    deployment_information: { address, network_id: String(chainId) },
  };
}

/** Which budget account built a template: an owner's budget on a chain. */
export interface BudgetRef {
  chainId: number;
  address: string;
}

/**
 * The templates with everything GET /action-templates shows: a campaign configuration on one of
 * the project's contracts, naming rules, review status, channels and who built it.
 */
export function completeTemplates(random: Random, reference: Reference, builders: BudgetRef[], now: Date): Rows['actionTemplates'] {
  const projectById = new Map(reference.rows.projects.map((project) => [project.id, project]));
  return reference.rows.actionTemplates.map((base, index) => {
    const project = projectById.get(base.projectId)!;
    const chain = random.pick(CHAINS).id;
    const contracts = reference.rows.contracts.filter(
      (contract) => contract.chainId === chain && contract.name.startsWith(`${project.name} `),
    );
    const contract = contracts.length > 0 ? random.pick(contracts) : reference.rows.contracts.find((row) => row.chainId === chain)!;
    const type = random.chance(0.6) ? ('event' as const) : ('function' as const);
    const signature = random.pick(type === 'event' ? EVENT_SIGNATURES : FUNCTION_SIGNATURES);
    const hash = signatureId(signature, type);
    const ref = contractRef(chain, contract.address, contract.name);
    const parameterFilters = random.chance(0.5)
      ? [{ id: random.uuid(), parameter: 'arg1:1', comparator: random.pick(['==', '>', '>=']), value: String(random.int(0, 1000)) }]
      : [];
    const logFilters = random.chance(0.3)
      ? [
          {
            id: random.uuid(),
            contract: random.chance(0.8) ? ref : null,
            signatureHash: signatureId(EVENT_SIGNATURES[0], 'event'),
            signature: random.chance(0.8) ? EVENT_SIGNATURES[0] : null,
            parameters: [],
          },
        ]
      : [];
    const rewardType = random.pick(REWARD_TYPES);
    const pegged = rewardType.includes('pegged');
    const variable = rewardType.includes('variable');
    const campaignConfig: Record<string, unknown> = {
      selectedContract: ref,
      selectedSignatureHash: hash,
      selectedSignature: signature,
      parameterFilters,
      logFilters,
      ...(random.chance(0.7) ? { selectedAbiItem: abiItem(signature, type) } : {}),
      claimantContract: ref,
      claimantSignatureHash: hash,
      claimantSignature: signature,
      claimantParameterMapping: random.pick(['arg0:0', 'arg1:1']),
      reward: {
        type: rewardType,
        budget: String(random.int(100, 100_000)),
        amount: String(random.int(1, 50)),
        rebatePercentage: variable ? random.pick([5, 10, 25, 50, 100]) : 0,
        ...(pegged ? { peg: rewardType === 'usd-pegged' ? 'USD' : '0x0000000000000000000000000000000000000000' } : {}),
      },
      ...(variable
        ? {
            criteria: {
              signature: hash,
              valueType: random.int(0, 1),
              fieldIndex: random.int(0, 3),
              criteriaType: type === 'event' ? 1 : 0,
              targetContract: contract.address,
            },
          }
        : {}),
      ...(random.chance(0.3) ? { rewardMultiplier: String(random.int(1, 5)) } : {}),
      ...(random.chance(0.5) ? { distributionChannel: random.sample(TEMPLATE_DISTRIBUTION_CHANNELS, random.int(1, 2)) } : {}),
    };
    const selector = type === 'function' ? hash : signatureId(FUNCTION_SIGNATURES[0], 'function');
    const nameConfig = {
      template: `${capitalize(base.actionType)} on ${project.name} {{index}}`,
      campaignNameGenerator: `${base.actionType}-v1`,
      abiFilters: [
        {
          signature: selector,
          inputArgIndexes: [0],
          ...(random.chance(0.5) ? { inputArgValues: [''] } : {}),
          ...(random.chance(0.5) ? { targetContract: contract.address } : {}),
        },
      ],
    };
    const builder = builders.length > 0 && random.chance(0.7) ? random.pick(builders) : null;
    const slug = project.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
    const builderMetadata =
      builder === null
        ? null
        : {
            ...(random.chance(0.6) ? { txHash: `0x${random.hex(32)}` } : {}),
            ...(random.chance(0.5) ? { description: `Built by the ${project.name} team` } : {}),
            // A handle, never an e-mail address: e-mail addresses are personal data the service never serves.
            ...(random.chance(0.4) ? { contactInfo: `@${slug}` } : {}),
            createdAt: new Date(now.getTime() - random.int(24, 200 * 24) * HOUR_MS).toISOString(),
            actionChain: chain,
            budgetAccount: { chainId: builder.chainId, address: builder.address },
            ...(random.chance(0.7) ? { projectUrl: project.url, projectIconUrl: project.imageUri } : {}),
            ...(random.chance(0.5) ? { isProjectCreator: random.chance(0.5) } : {}),
          };
    // The first dozen templates are active and approved, so every catalog entry campaigns use looks usable.
    const status = index < 12 ? 'approved' : random.weighted(TEMPLATE_STATUSES, [70, 15, 10, 5]);
    return {
      ...base,
      title: `${capitalize(base.actionType)} on ${project.name}`,
      campaignConfig,
      nameConfig,
      isActive: status === 'approved' ? random.chance(0.9) : random.chance(0.3),
      urlTemplate: random.chance(0.6) ? `${project.url}/${base.actionType}/{{contract}}` : null,
      allowlist: random.chance(0.15) ? random.sample(reference.users, random.int(1, 3)).map((user) => user.address) : [],
      distributionChannels: random.sample(TEMPLATE_DISTRIBUTION_CHANNELS, random.int(1, 3)),
      verificationLevel: random.chance(0.7) ? project.verificationLevel : null,
      builderMetadata,
      status,
    };
  });
}

/** A deployed registry component the generator knows: its chain, address and owner. */
export interface RegistryEntry {
  chainId: number;
  address: string;
  owner: string;
  registryType: (typeof REGISTRY_TYPES)[number];
}

const BLOCK_TIME_SECONDS: Record<number, number> = { 1: 12, 10: 2, 8453: 2, 42161: 0.25, 7777777: 2 };

/**
 * The budget registry: every budget account campaigns are funded from (BUDGET), the validators
 * (VALIDATOR) and a few action, allow-list and incentive components per chain, with owners,
 * members of both roles and every invitation status. E-mail addresses are stored for some
 * members, as a source would have them: the API must never serve them.
 */
export function generateBudgetRegistry(
  random: Random,
  entries: RegistryEntry[],
  users: { address: string }[],
  now: Date,
): Pick<Rows, 'budgetAccounts' | 'budgetAccountMembers'> {
  const budgetAccounts: Rows['budgetAccounts'] = [];
  const budgetAccountMembers: Rows['budgetAccountMembers'] = [];
  const implementations = new Map(REGISTRY_TYPES.map((type) => [type, random.address()]));
  const seen = new Set<string>();
  let demoMemberships = 0;
  for (const entry of entries) {
    const key = `${entry.chainId}:${entry.address}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const blockTimestamp = Math.floor(now.getTime() / 1000) - random.int(3_600, 400 * 86_400);
    const genesisOffset = 1_600_000_000;
    const blockNumber = Math.max(1, Math.floor((blockTimestamp - genesisOffset) / (BLOCK_TIME_SECONDS[entry.chainId] ?? 2)));
    const renamed = random.chance(0.3);
    budgetAccounts.push({
      chainId: entry.chainId,
      address: entry.address,
      registryType: entry.registryType,
      baseImplementation: implementations.get(entry.registryType)!,
      deployedInstance: entry.address,
      txHash: `0x${random.hex(32)}`,
      blockTimestamp,
      blockNumber,
      // Unique names are UUIDs until the owner renames the account; a few sources have none.
      name: random.chance(0.05) ? null : renamed ? `${capitalize(random.pick(NAME_WORDS))} budget ${budgetAccounts.length + 1}` : random.uuid(),
      owner: entry.owner,
      ownerEmail: random.chance(0.4) ? `owner${budgetAccounts.length + 1}@example.com` : null,
      hidden: random.chance(0.05),
      label: renamed && random.chance(0.6) ? capitalize(random.pick(NAME_WORDS)) : null,
      deprecated: random.chance(0.05),
    });
    if (entry.registryType !== 'BUDGET') continue;
    // The owner administers its budget; others manage it, invited and at every step of accepting.
    const members = new Map<string, Rows['budgetAccountMembers'][number]>();
    members.set(entry.owner, {
      chainId: entry.chainId,
      accountAddress: entry.address,
      memberAddress: entry.owner,
      roles: [1, 2],
      email: null,
      status: random.chance(0.5) ? 'wallet_created' : null,
    });
    const invitees = random.sample(users, random.int(0, 3)).map((user) => user.address);
    if (demoMemberships < 15 && random.chance(0.2)) {
      invitees.push(DEMO_USER_ADDRESS);
      demoMemberships++;
    }
    for (const member of invitees) {
      if (members.has(member)) continue;
      members.set(member, {
        chainId: entry.chainId,
        accountAddress: entry.address,
        memberAddress: member,
        roles: random.pick([[1], [1], [2], [1, 2]]),
        email: random.chance(0.5) ? `member${budgetAccountMembers.length + members.size}@example.com` : null,
        status: random.chance(0.1) ? null : random.pick(MEMBER_STATUSES),
      });
    }
    budgetAccountMembers.push(...members.values());
  }
  return { budgetAccounts, budgetAccountMembers };
}

/** Per chain, a few deployed components of the kinds that are not budgets or validators. */
export function otherRegistryEntries(random: Random, owners: string[]): RegistryEntry[] {
  const entries: RegistryEntry[] = [];
  for (const chain of CHAINS) {
    for (const registryType of ['ACTION', 'ALLOW_LIST', 'INCENTIVE'] as const) {
      for (let index = 0; index < 3; index++) {
        entries.push({ chainId: chain.id, address: random.address(), owner: random.pick(owners), registryType });
      }
    }
  }
  return entries;
}

const NAME_WORDS = ['growth', 'rewards', 'quests', 'season', 'launch', 'community', 'partners', 'treasury'];
