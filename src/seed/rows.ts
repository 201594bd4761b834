import * as schema from '../db/schema.js';

/** The tables the generator fills, in an order that satisfies every foreign key. */
export const SEED_TABLES = {
  tokens: schema.tokens,
  projects: schema.projects,
  actionTemplates: schema.actionTemplates,
  contracts: schema.contracts,
  users: schema.users,
  accessLists: schema.accessLists,
  accessListMembers: schema.accessListMembers,
  knownSignatures: schema.knownSignatures,
  budgetAccounts: schema.budgetAccounts,
  budgetAccountMembers: schema.budgetAccountMembers,
  allowLists: schema.allowLists,
  allowListAddresses: schema.allowListAddresses,
  campaigns: schema.campaigns,
  incentives: schema.incentives,
  actionSteps: schema.actionSteps,
  claimSignatures: schema.claimSignatures,
  claims: schema.claims,
} as const;

export type SeedTableName = keyof typeof SEED_TABLES;

/** Rows as Drizzle's insert types: the generator is type-checked against the storage contract. */
export type Rows = { [Name in SeedTableName]: (typeof SEED_TABLES)[Name]['$inferInsert'][] };

/** A batch of rows for one table, as the generator yields them and the writer takes them. */
export type Chunk = { [Name in SeedTableName]: { table: Name; rows: Rows[Name] } }[SeedTableName];
