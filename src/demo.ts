import { max } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { DatabaseHandle } from './db/client.js';
import { claims } from './db/schema.js';
import { createApiTokensRepository } from './repositories/api-tokens.repository.js';
import { DEFAULT_SEED, generateDataset } from './seed/dataset.js';
import { DEMO_USER_ADDRESS } from './seed/reference.js';
import { hasCampaigns, truncateDataset, writeDataset } from './ingest/bulk-load.js';

/** Small enough to load in a few seconds on PGlite, large enough to page, filter and trend. */
export const DEMO_CAMPAIGNS = 300;
export const DEMO_CLAIMS = 5000;
export const DEMO_TOKEN_LABEL = 'demo';

/** Demo claims span the 7 days before they were generated; older than this, trending is empty. */
const STALE_AFTER_MS = 24 * 60 * 60 * 1000;

/**
 * The zero-setup default: fills an empty database with the demo data set (or refreshes it when
 * its claims have aged out of the trending windows), then issues a fresh demo bearer token for
 * the demo user, revoking the previous one. Returns the token to print.
 */
export async function prepareDemo(database: DatabaseHandle, logger: Logger, now = new Date()): Promise<string> {
  const empty = !(await hasCampaigns(database.db));
  const [latest] = empty ? [] : await database.db.select({ at: max(claims.claimedAt) }).from(claims);
  const stale = !empty && (latest?.at == null || now.getTime() - latest.at.getTime() > STALE_AFTER_MS);

  if (empty || stale) {
    const started = Date.now();
    if (stale) await truncateDataset(database.db);
    await writeDataset(database, generateDataset({ campaigns: DEMO_CAMPAIGNS, claims: DEMO_CLAIMS, seed: DEFAULT_SEED, now }));
    logger.info(
      { campaigns: DEMO_CAMPAIGNS, claims: DEMO_CLAIMS, ms: Date.now() - started },
      stale ? 'demo data refreshed (its claims had aged out of the trending windows)' : 'demo data loaded',
    );
  }

  const tokens = createApiTokensRepository(database.db);
  const userId = await tokens.findUserIdByAddress(DEMO_USER_ADDRESS);
  if (!userId) throw new Error(`demo user ${DEMO_USER_ADDRESS} is missing from the database`);
  await tokens.revokeTokensLabelled(DEMO_TOKEN_LABEL);
  const { token } = await tokens.createToken(userId, DEMO_TOKEN_LABEL);
  return token;
}
