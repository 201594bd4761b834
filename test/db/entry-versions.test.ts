import { type SQL, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { erc20Incentive, insertCampaign, insertClaim, insertToken } from '../helpers/factories.js';

/**
 * The versions the entry cache compares (entry_versions, entry_shared_version): which writes give
 * them new values, and which leave them alone. The answers built from them are tested in
 * test/routes/reward-kit-entry-cache.test.ts.
 */
describe('entry versions', () => {
  let database: TestDatabase;
  let first: { key: number };
  let second: { key: number };
  let token: { chainId: number; address: string };
  const run = (query: SQL) => database.db.execute(query);
  const versionOf = async (key: number) =>
    (await queryRows<{ version: string }>(database.db, sql`SELECT version::text FROM entry_versions WHERE campaign_key = ${key}`))[0]
      ?.version;
  const shared = async () =>
    (await queryRows<{ value: string }>(database.db, sql`SELECT value::text FROM entry_shared_version`))[0]!.value;

  beforeAll(async () => {
    database = await createTestDatabase();
    token = await insertToken(database.db);
    first = await insertCampaign(database.db, { incentives: [erc20Incentive(token.address)] });
    second = await insertCampaign(database.db, { incentives: [erc20Incentive(token.address)] });
  });
  afterAll(() => database?.close());

  it('gives a new campaign a version, and a claim a new one to its campaign only', async () => {
    const [before, other] = [await versionOf(first.key), await versionOf(second.key)];
    expect(before).toBeDefined();
    await insertClaim(database.db, { campaignKey: first.key, claimedAt: new Date(), amount: '5' });
    expect(await versionOf(first.key)).not.toBe(before);
    expect(await versionOf(second.key)).toBe(other);
  });

  it('gives every entry a new shared version when a token, template or project row changes, and not when none does', async () => {
    const writes: [string, SQL, boolean][] = [
      ['an update of no token', sql`UPDATE tokens SET symbol = 'X' WHERE false`, false],
      ['an update of a token', sql`UPDATE tokens SET symbol = 'RENAMED' WHERE chain_id = ${token.chainId} AND address = ${token.address}`, true],
      ['an update of no template', sql`UPDATE action_templates SET description = 'x' WHERE false`, false],
      ['a new project', sql`INSERT INTO projects (id, name, image_uri, url, verification_level) VALUES ('00000000-0000-4000-8000-00000000e7e7', 'Entry Versions', 'https://example.com/p.png', 'https://example.com', 'none')`, true],
      ['a deleted project', sql`DELETE FROM projects WHERE slug = 'entry-versions'`, true],
    ];
    for (const [name, write, changes] of writes) {
      const before = await shared();
      await run(write);
      expect(await shared() !== before, name).toBe(changes);
    }
  });

  it('forgets a deleted campaign, and never gives a version twice', async () => {
    const old = await versionOf(second.key);
    await run(sql`DELETE FROM campaigns WHERE key = ${second.key}`);
    expect(await versionOf(second.key)).toBeUndefined();
    const third = await insertCampaign(database.db, { incentives: [erc20Incentive(token.address)] });
    expect(BigInt((await versionOf(third.key))!)).toBeGreaterThan(BigInt(old!));
  });
});
