import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { writeDataset } from '../../src/ingest/bulk-load.js';
import { createRewardKitRepository, type ProfileRows } from '../../src/repositories/reward-kit.repository.js';
import type { EntryVersionRow } from '../../src/repositories/trending.repository.js';
import { generateDataset } from '../../src/seed/dataset.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/**
 * GET /reward-kit filtered by nothing but the token whitelist (what a wallet asks) is one call of
 * reward_profile() (src/db/sql/reward_profile.sql); every other profile is made of the statements the
 * API builds. Both must give the same lists, signatures and totals, and reward_profile()'s versions
 * and standing must be trending_entry_versions()'s.
 */
describe('reward_profile(): the profile as the built statements make it', () => {
  let database: TestDatabase;
  const NOW = new Date('2026-11-20T12:00:00Z');
  let claimants: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    await writeDataset(database, generateDataset({ campaigns: 150, claims: 3000, seed: 7, now: NOW }));
    const rows = await queryRows<{ claimant: string }>(
      database.db,
      sql`(SELECT claimant FROM claims GROUP BY claimant ORDER BY count(DISTINCT campaign_key) DESC, claimant LIMIT 4)
          UNION (SELECT claimant FROM claim_signatures WHERE NOT used GROUP BY claimant ORDER BY count(*) DESC, claimant LIMIT 4)
          UNION (SELECT address FROM allow_list_addresses ORDER BY address LIMIT 2)
          UNION (SELECT address FROM access_list_members ORDER BY address LIMIT 2)`,
    );
    claimants = [...rows.map((row) => row.claimant), '0x00000000000000000000000000000000000000aa'];
  }, 60_000);
  afterAll(() => database?.close());

  const sortedSignatures = (profile: ProfileRows) =>
    [...profile.unusedSignatures].sort((a, b) => a.key - b.key || (a.position ?? -1) - (b.position ?? -1));

  it('gives the lists, signatures and totals of the built statements, and trending_entry_versions() standing', async () => {
    const repository = createRewardKitRepository(database.db);
    let listed = 0;
    let signed = 0;
    const standings = new Set<string>();
    for (const claimant of claimants) {
      for (const tokenWhitelist of [true, false]) {
        for (const limit of [100, 3]) {
          const fast = await repository.findProfile(claimant, { tokenWhitelist }, limit, NOW);
          // An action-type exclusion that excludes nothing sends the profile down the built statements.
          const built = await repository.findProfile(claimant, { tokenWhitelist, excludedActionTypes: ['no-such-action'] }, limit, NOW);
          const where = `${claimant} whitelist ${tokenWhitelist} limit ${limit}`;
          expect(built.versions, where).toBeUndefined();
          expect(built.kept, where).toBeUndefined();
          expect({ ...fast, versions: undefined, kept: undefined, unusedSignatures: sortedSignatures(fast) }, where).toEqual({
            ...built,
            unusedSignatures: sortedSignatures(built),
          });
          const keys = [...fast.claimed, ...fast.claimable, ...fast.active];
          const expected = await queryRows<EntryVersionRow>(
            database.db,
            sql`SELECT * FROM trending_entry_versions(${sql.param(keys)}::integer[], ${claimant})`,
          );
          expect(fast.versions, where).toEqual(expected);
          // What a kept copy is checked against: the same state read on its own, no write of the
          // claimant since its snapshot, and the next start or end.
          expect(await repository.checkKeptProfile(claimant, keys, fast.kept!.snapshot), where).toEqual({
            state: fast.kept!.state,
            claimantChanged: false,
          });
          const [boundary] = await queryRows<{ ms: number | null }>(
            database.db,
            sql`SELECT (EXTRACT(EPOCH FROM min(t)) * 1000)::float8 AS ms
                  FROM (SELECT start_time AS t FROM campaigns UNION ALL SELECT end_time FROM campaigns) AS times WHERE t > ${NOW}`,
          );
          expect(fast.kept?.validUntilMs, where).toBe(boundary!.ms);
          listed += keys.length;
          signed += fast.unusedSignatures.length;
          for (const row of expected) standings.add(`${row.claimant_claimed}/${row.claimant_listed}/${row.claimant_member}/${row.signature !== null}`);
        }
      }
    }
    // The data exercised every part: lists, signatures, and each kind of standing.
    expect(listed).toBeGreaterThan(200);
    expect(signed).toBeGreaterThan(0);
    for (const standing of ['true/false/false/false', 'false/false/false/false']) expect(standings).toContain(standing);
    expect([...standings].some((standing) => standing.split('/')[1] === 'true')).toBe(true);
    expect([...standings].some((standing) => standing.split('/')[2] === 'true')).toBe(true);
    expect([...standings].some((standing) => standing.endsWith('/true'))).toBe(true);
  });
});
