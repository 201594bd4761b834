import { randomBytes } from 'node:crypto';
import type { Database } from '../../src/db/client.js';
import { accessListMembers, accessLists, campaigns, claims, incentives, users } from '../../src/db/schema.js';
import { createApiTokensRepository } from '../../src/repositories/api-tokens.repository.js';

/**
 * Small factories that insert one row of one table with Drizzle, named after the table.
 * Every column a test does not care about gets a valid default; pass overrides for the rest.
 */

export const randomAddress = () => `0x${randomBytes(20).toString('hex')}`;
const randomHash = () => `0x${randomBytes(32).toString('hex')}`;

export async function insertUser(db: Database, overrides: Partial<typeof users.$inferInsert> = {}) {
  const [row] = await db
    .insert(users)
    .values({ address: randomAddress(), ...overrides })
    .returning();
  return row!;
}

/** Issues a bearer token through the repository, as the token command does; returns the clear token. */
export async function insertApiToken(db: Database, userId: string, label: string | null = null) {
  return createApiTokensRepository(db).createToken(userId, label);
}

export async function insertAccessList(
  db: Database,
  overrides: Partial<typeof accessLists.$inferInsert> & Pick<typeof accessLists.$inferInsert, 'ownerUserId'>,
) {
  const [row] = await db
    .insert(accessLists)
    .values({ name: 'Access list', icon: 'https://assets.example.com/icons/star.svg', ...overrides })
    .returning();
  return row!;
}

/** Adds `count` random member addresses to an access list. */
export async function insertAccessListMembers(db: Database, accessListId: string, count: number) {
  if (count === 0) return;
  await db.insert(accessListMembers).values(Array.from({ length: count }, () => ({ accessListId, address: randomAddress() })));
}

let nextIdentifier = 1;

export async function insertCampaign(db: Database, overrides: Partial<typeof campaigns.$inferInsert> = {}) {
  const owner = randomAddress();
  const [row] = await db
    .insert(campaigns)
    .values({
      chainId: 8453,
      coreAddress: randomAddress(),
      identifier: String(nextIdentifier++),
      campaignIndex: '0',
      owner,
      creator: owner,
      budget: randomAddress(),
      validator: randomAddress(),
      action: randomAddress(),
      protocolFee: '0',
      maxParticipants: '1000',
      blockTimestamp: 1_735_689_600,
      blockNumber: 1,
      txHash: randomHash(),
      ...overrides,
    })
    .returning();
  return row!;
}

/** A points incentive by default: it needs no token row. */
export async function insertIncentive(
  db: Database,
  overrides: Partial<typeof incentives.$inferInsert> & Pick<typeof incentives.$inferInsert, 'campaignKey'>,
) {
  const [row] = await db
    .insert(incentives)
    .values({
      position: 0,
      type: 'PointsIncentive',
      params: { venue: randomAddress(), selector: '0xa9059cbb', reward: '10', limit: '1000000' },
      ...overrides,
    })
    .returning();
  return row!;
}

/** Claims reference an incentive (and so a campaign): pass one from insertIncentive. */
export async function insertClaim(
  db: Database,
  incentive: { campaignKey: number; position: number },
  overrides: Partial<typeof claims.$inferInsert> & Pick<typeof claims.$inferInsert, 'claimant'>,
) {
  const [row] = await db
    .insert(claims)
    .values({
      campaignKey: incentive.campaignKey,
      incentivePosition: incentive.position,
      amount: '10',
      usdValue: '1',
      ethValueWei: '1000000000000000',
      txHash: randomHash(),
      claimedAt: new Date(),
      ...overrides,
    })
    .returning();
  return row!;
}
