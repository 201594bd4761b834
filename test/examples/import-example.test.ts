import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { App } from '../../src/app.js';
import { queryRows } from '../../src/db/client.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/**
 * examples/campaigns.ndjson, the file the walk-through of docs/operations.md ("Your own data")
 * imports: the commands it shows (a dry run, the import, a token for the file's user) accept it, and
 * the API then answers with its campaigns, their claims and its tokens' prices, and the token with
 * that user's profile.
 */

const run = promisify(execFile);
const EXAMPLE = 'examples/campaigns.ndjson';
const records = readFileSync(EXAMPLE, 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as { kind: string; chainId?: number; coreAddress?: string; identifier?: string; address?: string });
/** The user the walk-through issues a token for. */
const WALK_THROUGH_USER = '0x5eed00000000000000000000000000000000c0de';

// The commands reach the database by URL: PostgreSQL only (the embedded test database has none).
describe.runIf(inject('testDatabase').kind === 'postgres')('the example import file', () => {
  let database: TestDatabase;
  let app: App;
  const command = (script: string, args: string[]) =>
    run('node', [`dist/cli/${script}.js`, ...args], { env: { PATH: process.env.PATH, DATABASE_URL: database.url, LOG_LEVEL: 'silent' } });

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it('holds campaigns of several variants, claims, priced tokens and a template', () => {
    const kinds = new Set(records.map((record) => record.kind));
    for (const kind of ['token', 'price', 'project', 'actionTemplate', 'contract', 'allowList', 'user', 'campaign', 'claim']) expect(kinds).toContain(kind);
    const variants = new Set(
      records.filter((record) => record.kind === 'campaign').flatMap((record) => (record as unknown as { incentives: { type: string }[] }).incentives.map((incentive) => incentive.type)),
    );
    expect(variants.size).toBeGreaterThanOrEqual(5);
    expect(records.filter((record) => record.kind === 'token').every((token) => (token as unknown as { priceUsd: string | null }).priceUsd !== null)).toBe(true);
  });

  it('is accepted by a dry run, imported, and served', async () => {
    const dryRun = await command('import', [EXAMPLE, '--dry-run']);
    expect(dryRun.stderr).toBe('');
    await command('import', [EXAMPLE]);
    app = await buildTestApp(database);
    const campaigns = records.filter((record) => record.kind === 'campaign');
    const list = await app.inject('/campaigns?tokenWhitelist=false&pageSize=100');
    expect(list.json<{ totalCampaigns: number }>().totalCampaigns).toBe(campaigns.length);
    let claims = 0;
    for (const campaign of campaigns) {
      const id = `${campaign.chainId}:${campaign.coreAddress}:${campaign.identifier}`;
      expect((await app.inject(`/campaigns/${id}`)).statusCode, id).toBe(200);
      const activity = await app.inject(`/campaigns/${id}/activity?pageSize=100`);
      expect(activity.statusCode, id).toBe(200);
      claims += activity.json<{ totalActivityCount: number }>().totalActivityCount;
    }
    expect(claims).toBe(records.filter((record) => record.kind === 'claim').length);
    // The file's past prices are in the price history, at their times.
    for (const price of records.filter((record) => record.kind === 'price') as unknown as { chainId: number; address: string; at: string; priceUsd: string }[]) {
      const stored = await queryRows<{ price: string }>(
        database.db,
        sql`SELECT price_usd::text AS price FROM token_prices
             WHERE chain_id = ${price.chainId} AND address = ${price.address} AND at = ${price.at}::timestamptz AND source = 'import'`,
      );
      expect(stored.map((row) => Number(row.price))).toEqual([Number(price.priceUsd)]);
    }
    // As the walk-through says: the default list hides the campaign paying a token the file does not whitelist.
    expect((await app.inject('/campaigns')).json<{ totalCampaigns: number }>().totalCampaigns).toBe(campaigns.length - 1);
  });

  it("issues the walk-through's token for the file's user, and the token reads that user's profile", async () => {
    expect(records.filter((record) => record.kind === 'user').map((record) => record.address)).toContain(WALK_THROUGH_USER);
    const issued = await command('token', ['create', '--user', WALK_THROUGH_USER]);
    const token = /^(cs_[A-Za-z0-9_-]{43})$/m.exec(issued.stdout)?.[1];
    expect(token, issued.stdout).toBeDefined();
    const profile = await app.inject({ url: '/users/profile', headers: { authorization: `Bearer ${token}` } });
    expect(profile.statusCode, profile.body).toBe(200);
  });
});
