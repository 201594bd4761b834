import { createCampaignContext, generateCampaign, type ClaimTarget } from './campaigns.js';
import { generateClaims } from './claims.js';
import { createRandom } from './random.js';
import { DEMO_USER_ADDRESS, generateReference } from './reference.js';
import { type BudgetRef, completeTemplates, generateBudgetRegistry, knownSignatureRows, otherRegistryEntries, type RegistryEntry } from './registry.js';
import type { Chunk, Rows } from './rows.js';

export interface DatasetOptions {
  campaigns: number;
  claims: number;
  /** Same seed and same `now`, same data. */
  seed: number | string;
  /** Claims and campaign windows are placed relative to this instant. */
  now: Date;
  /** Rows per chunk; the writer sends one chunk per statement. */
  batchSize?: number;
}

export const DEFAULT_SEED = 42;

/**
 * The whole data set as a stream of chunks in foreign-key order. Pure: no I/O, no clock, no global
 * randomness, and memory stays flat because campaigns and claims are produced batch by batch.
 */
export function* generateDataset(options: DatasetOptions): Generator<Chunk> {
  const batchSize = options.batchSize ?? 5000;
  const now = options.now.getTime();
  const random = createRandom(options.seed);

  const reference = generateReference(random.fork('reference'), options.campaigns, options.now);
  const context = createCampaignContext(random.fork('context'), reference, options.campaigns, now);

  // Template builders fund from the owners' budget accounts, which the registry below then lists.
  const registryRandom = random.fork('registry');
  const builders: BudgetRef[] = context.owners
    .slice(0, 12)
    .map(({ budget }) => ({ chainId: registryRandom.pick(reference.rows.contracts).chainId, address: budget }));
  const registry: RegistryEntry[] = builders.map((builder) => ({
    ...builder,
    owner: context.owners.find((owner) => owner.budget === builder.address)!.owner,
    registryType: 'BUDGET',
  }));
  const actionTemplates = completeTemplates(random.fork('templates'), reference, builders, options.now);
  for (const table of Object.keys(reference.rows) as (keyof typeof reference.rows)[]) {
    if (table === 'actionTemplates') yield* chunked(table, actionTemplates, batchSize);
    else yield* chunked(table, reference.rows[table], batchSize);
  }
  yield* chunked('knownSignatures', knownSignatureRows(), batchSize);
  const campaignRandom = random.fork('campaigns');
  const claimTargets: ClaimTarget[] = [];
  const campaignsPerChunk = Math.max(1, Math.floor(batchSize / 4));
  for (let first = 1; first <= options.campaigns; first += campaignsPerChunk) {
    const rows: Pick<Rows, 'allowLists' | 'allowListAddresses' | 'campaigns' | 'incentives' | 'actionSteps' | 'claimSignatures'> = {
      allowLists: [],
      allowListAddresses: [],
      campaigns: [],
      incentives: [],
      actionSteps: [],
      claimSignatures: [],
    };
    const last = Math.min(options.campaigns, first + campaignsPerChunk - 1);
    for (let key = first; key <= last; key++) {
      const generated = generateCampaign(campaignRandom, context, key, options.campaigns);
      for (const table of Object.keys(rows) as (keyof typeof rows)[]) {
        (rows[table] as unknown[]).push(...generated.rows[table]);
      }
      claimTargets.push(generated.claimTarget);
      for (const campaign of generated.rows.campaigns) {
        registry.push({ chainId: campaign.chainId, address: campaign.budget, owner: campaign.owner, registryType: 'BUDGET' });
      }
    }
    for (const table of Object.keys(rows) as (keyof typeof rows)[]) {
      yield* chunked(table, rows[table], batchSize);
    }
  }

  const protocolOwner = registryRandom.address();
  for (const [chainId, validators] of context.validators) {
    for (const address of validators) registry.push({ chainId, address, owner: protocolOwner, registryType: 'VALIDATOR' });
  }
  registry.push(...otherRegistryEntries(registryRandom, context.owners.map((owner) => owner.owner)));
  const budgetRegistry = generateBudgetRegistry(registryRandom, registry, reference.users, options.now);
  yield* chunked('budgetAccounts', budgetRegistry.budgetAccounts, batchSize);
  yield* chunked('budgetAccountMembers', budgetRegistry.budgetAccountMembers, batchSize);

  const claimants = reference.users.map((user) => user.address);
  const plan = { targets: claimTargets, claimants, demoUserAddress: DEMO_USER_ADDRESS, count: options.claims, now };
  for (const rows of generateClaims(random.fork('claims'), plan, batchSize)) {
    yield { table: 'claims', rows };
  }
}

function* chunked<Name extends keyof Rows>(table: Name, rows: Rows[Name], size: number): Generator<Chunk> {
  for (let start = 0; start < rows.length; start += size) {
    yield { table, rows: rows.slice(start, start + size) } as Chunk;
  }
}
