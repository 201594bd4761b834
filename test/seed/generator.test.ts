import { Ajv } from 'ajv';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import {
  ACTION_TEMPLATE_CATEGORIES,
  ALLOW_LIST_TYPES,
  INCENTIVE_TYPES,
  MEMBER_STATUSES,
  REGISTRY_TYPES,
  TEMPLATE_STATUSES,
} from '../../src/db/schema.js';
import { TemplateBuilderMetadata, TemplateCampaignConfig, TemplateNameConfig } from '../../src/schemas/template-config.js';
import { INCENTIVE_VARIANTS } from '../../src/schemas/incentives.js';
import { SHARED_SCHEMAS } from '../../src/schemas/index.js';
import { generateDataset } from '../../src/seed/dataset.js';
import type { Rows, SeedTableName } from '../../src/seed/rows.js';
import { writeDataset } from '../../src/ingest/bulk-load.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

const NOW = new Date('2026-11-20T12:00:00Z');
const OPTIONS = { campaigns: 150, claims: 2000, seed: 7, now: NOW, batchSize: 500 };

function collect(options = OPTIONS): Rows {
  const rows = {} as Record<SeedTableName, unknown[]>;
  for (const chunk of generateDataset(options)) (rows[chunk.table] ??= []).push(...chunk.rows);
  return rows as Rows;
}

describe('data generator (pure)', () => {
  const rows = collect();

  it('produces the requested counts', () => {
    expect(rows.campaigns).toHaveLength(150);
    expect(rows.claims).toHaveLength(2000);
  });

  it('is deterministic: same seed and now, same data; another seed, other data', () => {
    const again = collect();
    expect(JSON.stringify(again.campaigns)).toBe(JSON.stringify(rows.campaigns));
    expect(JSON.stringify(again.claims)).toBe(JSON.stringify(rows.claims));
    const other = collect({ ...OPTIONS, seed: 8 });
    expect(JSON.stringify(other.campaigns)).not.toBe(JSON.stringify(rows.campaigns));
  });

  it('covers every incentive variant, allow-list type, signature type and template category', () => {
    expect(new Set(rows.incentives.map((row) => row.type))).toEqual(new Set(INCENTIVE_TYPES));
    expect(new Set(rows.allowLists.map((row) => row.type))).toEqual(new Set(ALLOW_LIST_TYPES));
    expect(rows.campaigns.some((row) => row.allowListId == null)).toBe(true);
    expect(new Set(rows.actionSteps.map((row) => row.signatureType))).toEqual(new Set(['event', 'function']));
    expect(new Set(rows.actionTemplates.map((row) => row.category))).toEqual(new Set(ACTION_TEMPLATE_CATEGORIES));
    expect(rows.campaigns.some((row) => row.actionTemplateId == null)).toBe(true);
    expect(rows.campaigns.some((row) => row.actionTemplateId != null)).toBe(true);
    expect(rows.contracts.length).toBeGreaterThan(0);
    expect(rows.claimSignatures.length).toBeGreaterThan(0);
    expect(rows.accessListMembers.length).toBeGreaterThan(0);
    expect(rows.users.every((user) => Number.isInteger(user.score))).toBe(true);
  });

  it('fills the registry: every registry type, both member roles, every member status, blocked tokens, templates of every status', () => {
    expect(new Set(rows.budgetAccounts.map((row) => row.registryType))).toEqual(new Set(REGISTRY_TYPES));
    expect(new Set(rows.budgetAccountMembers.flatMap((row) => row.roles))).toEqual(new Set([1, 2]));
    expect(new Set(rows.budgetAccountMembers.map((row) => row.status))).toEqual(new Set([...MEMBER_STATUSES, null]));
    expect(rows.budgetAccountMembers.some((row) => row.email !== null && row.email !== undefined)).toBe(true);
    expect(rows.budgetAccounts.some((row) => row.hidden) && rows.budgetAccounts.some((row) => row.deprecated)).toBe(true);
    // Every campaign's budget account is in the registry on the campaign's chain.
    const budgets = new Set(rows.budgetAccounts.map((row) => `${row.chainId}:${row.address}`));
    expect(rows.campaigns.every((row) => budgets.has(`${row.chainId}:${row.budget}`))).toBe(true);
    expect(rows.tokens.filter((row) => row.isBlocked).length).toBeGreaterThan(0);
    expect(rows.tokens.every((row) => !(row.isBlocked && row.isWhitelisted))).toBe(true);
    expect(new Set(rows.actionTemplates.map((row) => row.status))).toEqual(new Set(TEMPLATE_STATUSES));
    expect(rows.actionTemplates.some((row) => row.builderMetadata === null)).toBe(true);
    expect(new Set(rows.knownSignatures.map((row) => row.signatureType))).toEqual(new Set(['event', 'function']));
  });

  it('gives every template a configuration that validates against the API schema', () => {
    const ajv = new Ajv({ strict: false, keywords: ['errorMessage'] });
    for (const [schema, field] of [
      [TemplateCampaignConfig, 'campaignConfig'],
      [TemplateNameConfig, 'nameConfig'],
    ] as const) {
      const validate = ajv.compile(schema);
      for (const row of rows.actionTemplates) expect(validate(row[field]), JSON.stringify(validate.errors)).toBe(true);
    }
    const builder = ajv.compile(TemplateBuilderMetadata);
    for (const row of rows.actionTemplates) {
      if (row.builderMetadata) expect(builder(row.builderMetadata), JSON.stringify(builder.errors)).toBe(true);
    }
  });

  it('gives every incentive params that validate against its variant schema', () => {
    const ajv = new Ajv({ keywords: ['errorMessage'], validateFormats: false, allErrors: true });
    for (const schema of SHARED_SCHEMAS) ajv.addSchema(schema);
    const validators = new Map(INCENTIVE_VARIANTS.map((schema) => [schema.$id as string, ajv.getSchema(schema.$id as string)!]));
    for (const incentive of rows.incentives) {
      const validate = validators.get(incentive.type)!;
      const value = { type: incentive.type, ...(incentive.params as object) };
      expect(validate(value), `${incentive.type}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });

  it('uses the real campaign ID format, with IDs over 100 characters', () => {
    for (const campaign of rows.campaigns) {
      const id = `${campaign.chainId}:${campaign.coreAddress}:${campaign.identifier}`;
      expect(id).toMatch(/^[0-9]+:0x[0-9a-f]{40}:[0-9]{1,78}$/);
    }
    expect(rows.campaigns.some((c) => `${c.chainId}:${c.coreAddress}:${c.identifier}`.length > 100)).toBe(true);
  });

  it('places every claim in the 7 days before now, on several chains', () => {
    const weekAgo = NOW.getTime() - 7 * 24 * 3600 * 1000;
    for (const claim of rows.claims) {
      const at = claim.claimedAt.getTime();
      expect(at).toBeGreaterThanOrEqual(weekAgo);
      expect(at).toBeLessThanOrEqual(NOW.getTime());
    }
    expect(new Set(rows.campaigns.map((row) => row.chainId)).size).toBeGreaterThanOrEqual(4);
  });
});

describe('data generator written to the database', () => {
  let database: TestDatabase;
  const rows = collect();

  beforeAll(async () => {
    database = await createTestDatabase();
    await writeDataset(database, generateDataset(OPTIONS));
  });
  afterAll(() => database.close());

  const scalar = async <T>(query: ReturnType<typeof sql>) => (await queryRows<{ value: T }>(database.db, query))[0]!.value;

  it('stores every row', async () => {
    expect(await scalar<string>(sql`SELECT count(*) AS value FROM campaigns`)).toBe('150');
    expect(await scalar<string>(sql`SELECT count(*) AS value FROM claims`)).toBe('2000');
    expect(await scalar<string>(sql`SELECT count(*) AS value FROM incentives`)).toBe(String(rows.incentives.length));
  });

  it('keeps claim totals equal to the claims, and no incentive over its budget', async () => {
    const mismatches = await scalar<string>(sql`
      SELECT count(*) AS value FROM incentives i
      LEFT JOIN (SELECT campaign_key, incentive_position, count(*) AS n, sum(amount) AS total
                 FROM claims GROUP BY 1, 2) c
        ON c.campaign_key = i.campaign_key AND c.incentive_position = i.position
      WHERE i.total_claims <> coalesce(c.n, 0) OR i.total_amount_claimed <> coalesce(c.total, 0)`);
    expect(mismatches).toBe('0');
    const over = await scalar<string>(sql`
      SELECT count(*) AS value FROM incentives
      WHERE total_claims > claim_limit OR total_amount_claimed > total_budget`);
    expect(over).toBe('0');
  });

  it('derives has_budget_left from the incentives, with some campaigns exhausted', async () => {
    const wrong = await scalar<string>(sql`
      SELECT count(*) AS value FROM campaigns c
      WHERE c.has_budget_left IS DISTINCT FROM EXISTS (
        SELECT 1 FROM incentives i WHERE i.campaign_key = c.key
          AND (i.claim_limit IS NULL OR i.total_claims < i.claim_limit)
          AND (i.total_budget IS NULL OR i.total_amount_claimed < i.total_budget))`);
    expect(wrong).toBe('0');
  });

  it('round-trips uint256 values as strings, including 78-digit ones', async () => {
    const stored = await queryRows<{ identifier: string; public_id: string }>(
      database.db,
      sql`SELECT identifier::text, public_id FROM campaigns ORDER BY key`,
    );
    expect(stored.map((row) => row.identifier)).toEqual(rows.campaigns.map((row) => row.identifier));
    const longest = await scalar<number>(sql`
      SELECT max(length(amount::text)) AS value FROM (
        SELECT (params->>'limit')::numeric AS amount FROM incentives WHERE params ? 'limit') limits`);
    expect(longest).toBe(78);
  });
});
