import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { queryRows } from '../../src/db/client.js';
import { writeDataset } from '../../src/ingest/bulk-load.js';
import { generateDataset } from '../../src/seed/dataset.js';
import type { BudgetAccountList, KnownSignaturePage, TemplateList } from '../../src/schemas/registry.js';
import { DEMO_USER_ADDRESS } from '../../src/seed/reference.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { expectToMatchSchema } from '../helpers/schema.js';

/**
 * The registry operations on generated data: every answer is validated against its schema and
 * compared, field by field, with a plain SQL computation of what it should say.
 */
const NOW = new Date('2026-11-20T12:00:00Z');

describe('registry operations', () => {
  let database: TestDatabase;
  let app: App;
  const rows = <Row>(query: ReturnType<typeof sql>) => queryRows<Row>(database.db, query);

  beforeAll(async () => {
    database = await createTestDatabase();
    await writeDataset(database, generateDataset({ campaigns: 120, claims: 1500, seed: 17, now: NOW }));
    app = await buildTestApp(database, {}, undefined, { clock: () => NOW });
  }, 60_000);
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  const get = async <T = unknown>(url: string, schemaId?: string): Promise<T> => {
    const response = await app.inject(url);
    expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
    const body = response.json<T>();
    if (schemaId) expectToMatchSchema(body, schemaId);
    return body;
  };
  const expectError = async (url: string, status: number, message: RegExp) => {
    const response = await app.inject(url);
    expect(response.statusCode, `${url}: ${response.body}`).toBe(status);
    expect(Object.keys(response.json())).toEqual(['error']);
    expect(response.json<{ error: string }>().error).toMatch(message);
  };

  describe('GET /known-signatures', () => {
    it('pages every known signature in ID order, with the total on all pages and abiItem only when known', async () => {
      const expected = await rows<{ id: string; text_signature: string; abi_item: unknown; signature_type: string }>(
        sql`SELECT id, text_signature, abi_item, signature_type FROM known_signatures ORDER BY id`,
      );
      expect(expected.length).toBeGreaterThan(10);
      const first = await get<KnownSignaturePage>('/known-signatures?pageSize=5', 'KnownSignaturePage');
      const second = await get<KnownSignaturePage>('/known-signatures?page=2&pageSize=5', 'KnownSignaturePage');
      const all = await get<KnownSignaturePage>('/known-signatures?pageSize=100', 'KnownSignaturePage');
      expect(first.count).toBe(expected.length);
      expect(second.count).toBe(expected.length);
      expect([...first.signatures, ...second.signatures]).toEqual(all.signatures.slice(0, 10));
      expect(all.signatures).toEqual(
        expected.map((row) => ({
          id: row.id,
          textSignature: row.text_signature,
          ...(row.abi_item === null ? {} : { abiItem: row.abi_item }),
          signatureType: row.signature_type,
        })),
      );
      expect(all.signatures.some((signature: object) => !('abiItem' in signature))).toBe(true);
      expect((await get<KnownSignaturePage>('/known-signatures?pageSize=0')).signatures).toEqual([]);
    });

    it('refuses bad paging', async () => {
      await expectError('/known-signatures?pageSize=101', 400, /pageSize/);
      await expectError('/known-signatures?page=-1', 400, /page/);
      await expectError('/known-signatures?sortBy=id', 400, /unknown query parameter 'sortBy'/);
    });
  });

  describe('GET /signatures/claimable/{address}', () => {
    it("lists an address's unused signatures on active campaigns, newest first", async () => {
      const [{ claimant } = { claimant: '' }] = await rows<{ claimant: string }>(
        sql`SELECT g.claimant FROM claim_signatures AS g JOIN campaigns AS c ON c.key = g.campaign_key
             WHERE NOT g.used AND (c.start_time IS NULL OR c.start_time <= ${NOW}) AND (c.end_time IS NULL OR c.end_time > ${NOW})
               AND c.has_budget_left
             GROUP BY g.claimant ORDER BY count(*) DESC, g.claimant LIMIT 1`,
      );
      const expected = await rows<{ public_id: string; signature: string; incentive_id: number; referrer: string }>(
        sql`SELECT c.public_id, g.signature, g.incentive_id, g.referrer FROM claim_signatures AS g
              JOIN campaigns AS c ON c.key = g.campaign_key
             WHERE g.claimant = ${claimant} AND NOT g.used AND (c.start_time IS NULL OR c.start_time <= ${NOW})
               AND (c.end_time IS NULL OR c.end_time > ${NOW}) AND c.has_budget_left
             ORDER BY g.id DESC`,
      );
      expect(expected.length).toBeGreaterThan(0);
      const body = await get(`/signatures/claimable/${claimant.toUpperCase().replace('0X', '0x')}`, 'ClaimableSignatureList');
      expect(body).toEqual(
        expected.map((row) => ({
          campaignId: row.public_id,
          signature: row.signature,
          claimant,
          incentiveId: row.incentive_id,
          referrer: row.referrer,
        })),
      );
      expect(await get('/signatures/claimable/0x00000000000000000000000000000000000000ff')).toEqual([]);
    });

    it('refuses a malformed address', async () => {
      await expectError('/signatures/claimable/0x123', 400, /address/);
    });
  });

  describe('GET /blocklist/{chainId}/{tokenAddress}', () => {
    it('says true for a blocked token on its chain only, false for others and unknown tokens', async () => {
      const blocked = await rows<{ chain_id: number; address: string }>(sql`SELECT chain_id, address FROM tokens WHERE is_blocked`);
      expect(blocked.length).toBeGreaterThan(0);
      for (const token of blocked) {
        expect(await get(`/blocklist/${token.chain_id}/${token.address}`, 'BlocklistStatus')).toEqual({ isBlocked: true });
        expect(await get(`/blocklist/${token.chain_id + 1}/${token.address}`)).toEqual({ isBlocked: false });
      }
      const [listed] = await rows<{ chain_id: number; address: string }>(sql`SELECT chain_id, address FROM tokens WHERE is_whitelisted LIMIT 1`);
      expect(await get(`/blocklist/${listed!.chain_id}/${listed!.address}`)).toEqual({ isBlocked: false });
      expect(await get('/blocklist/8453/0x00000000000000000000000000000000000000ff')).toEqual({ isBlocked: false });
    });

    it('refuses a malformed chain id or address, and needs both segments', async () => {
      await expectError('/blocklist/base/0x00000000000000000000000000000000000000ff', 400, /chainId/);
      await expectError('/blocklist/8453/0xnothex', 400, /tokenAddress/);
      await expectError('/blocklist/99999999999/0x00000000000000000000000000000000000000ff', 400, /chainId/);
      await expectError('/blocklist/8453', 404, /not found/i);
    });
  });

  describe('GET /action-templates and /action-templates/{id}', () => {
    const templateSql = (where: ReturnType<typeof sql>) =>
      rows<Record<string, unknown>>(
        sql`SELECT t.id::text AS id, t.action_type, p.slug, t.description, t.title, t.campaign_config, t.name_config,
                   t.is_active, t.url_template, t.allowlist, t.distribution_channels, t.verification_level,
                   t.builder_metadata, t.status, t.category, p.url, p.image_uri
              FROM action_templates AS t JOIN projects AS p ON p.id = t.project_id ${where} ORDER BY t.id`,
      );
    const asItem = (row: Record<string, unknown>) => ({
      actionTemplate: {
        id: row.id,
        actionType: row.action_type,
        projectId: row.slug,
        description: row.description,
        title: row.title,
        campaignConfig: row.campaign_config,
        nameConfig: row.name_config,
        isActive: row.is_active,
        urlTemplate: row.url_template,
        allowlist: row.allowlist,
        distributionChannel: row.distribution_channels,
        verificationLevel: row.verification_level,
        builderMetadata: row.builder_metadata,
        status: row.status,
        category: row.category,
      },
      project: { id: row.slug, url: row.url, icon: row.image_uri },
    });

    it('lists active templates by default, every one with onlyActive=false, and filters by status and builder', async () => {
      expect(await get('/action-templates', 'TemplateList')).toEqual((await templateSql(sql`WHERE t.is_active`)).map(asItem));
      const all = await templateSql(sql``);
      expect(all.some((row) => row.is_active === false)).toBe(true);
      expect(await get('/action-templates?onlyActive=false&pageSize=100', 'TemplateList')).toEqual(all.slice(0, 100).map(asItem));
      expect(await get('/action-templates?onlyActive=false&status=pending,rejected', 'TemplateList')).toEqual(
        (await templateSql(sql`WHERE t.status IN ('pending', 'rejected')`)).map(asItem),
      );
      const [builder] = await rows<{ address: string }>(
        sql`SELECT builder_budget_account AS address FROM action_templates WHERE builder_budget_account IS NOT NULL
             GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`,
      );
      const built = await get<TemplateList>(`/action-templates?onlyActive=false&address=${builder!.address}`, 'TemplateList');
      expect(built).toEqual((await templateSql(sql`WHERE t.builder_budget_account = ${builder!.address}`)).map(asItem));
      expect(built.length).toBeGreaterThan(0);
      expect((await get<TemplateList>('/action-templates?pageSize=2&page=2')).length).toBeLessThanOrEqual(2);
    });

    it('finds one template by ID whatever its status, and 404s an unknown one', async () => {
      const [inactive] = await templateSql(sql`WHERE NOT t.is_active`);
      expect(await get(`/action-templates/${String(inactive!.id)}`, 'TemplateItem')).toEqual(asItem(inactive!));
      await expectError('/action-templates/00000000-0000-4000-8000-000000000000', 404, /not found/);
    });

    it('refuses bad input', async () => {
      await expectError('/action-templates/not-a-uuid', 400, /id must be a UUID/);
      await expectError('/action-templates?status=approved,unknown', 400, /status/);
      await expectError('/action-templates?onlyActive=yes', 400, /onlyActive/);
      await expectError('/action-templates?address=0x1', 400, /address/);
      await expectError('/action-templates?pageSize=101', 400, /pageSize/);
    });

    it('leaves out a template without its campaign configuration (migrated before it existed) until it is imported again', async () => {
      const [template] = await templateSql(sql`WHERE t.is_active`);
      const id = String(template!.id);
      await database.db.execute(sql`UPDATE action_templates SET campaign_config = '{}'::jsonb WHERE id = ${id}::uuid`);
      try {
        const listed = await get<TemplateList>('/action-templates?onlyActive=false&pageSize=100', 'TemplateList');
        expect(listed.map((item) => item.actionTemplate.id)).not.toContain(id);
        expect(listed).toEqual((await templateSql(sql`WHERE t.campaign_config <> '{}'::jsonb`)).slice(0, 100).map(asItem));
        await expectError(`/action-templates/${id}`, 404, /not found/);
      } finally {
        await database.db.execute(
          sql`UPDATE action_templates SET campaign_config = ${JSON.stringify(template!.campaign_config)}::jsonb WHERE id = ${id}::uuid`,
        );
      }
      expect(await get(`/action-templates/${id}`, 'TemplateItem')).toEqual(asItem(template!));
    });
  });

  describe('GET /budget-accounts and /budget-accounts/{id}', () => {
    const accountSql = (where: ReturnType<typeof sql>, paging = sql``) =>
      rows<Record<string, unknown>>(
        sql`SELECT a.*, a.block_timestamp::text AS ts, a.block_number::text AS bn,
                   (SELECT coalesce(json_agg(json_build_object('memberAddress', m.member_address, 'roles', m.roles, 'status', m.status)
                                             ORDER BY m.member_address), '[]')
                      FROM budget_account_members AS m WHERE m.chain_id = a.chain_id AND m.account_address = a.address) AS members
              FROM budget_accounts AS a ${where} ORDER BY a.chain_id, a.address ${paging}`,
      );
    const asItem = (row: Record<string, unknown>) => ({
      id: `${String(row.chain_id)}:${String(row.address)}`,
      identifier: row.address,
      registryType: row.registry_type,
      baseImplementation: row.base_implementation,
      deployedInstance: row.deployed_instance,
      txHash: row.tx_hash,
      blockTimestamp: row.ts,
      blockNumber: row.bn,
      chainId: row.chain_id,
      ...(row.name === null ? {} : { name: row.name }),
      address: row.address,
      owner: row.owner,
      hidden: row.hidden,
      label: row.label,
      members: (row.members as { memberAddress: string; roles: number[]; status: string | null }[]).map((member) => ({
        memberAddress: member.memberAddress,
        roles: member.roles,
        email: null,
        ...(member.status === null ? {} : { status: member.status }),
      })),
      deprecated: row.deprecated,
    });

    it('lists visible accounts by chain then address, filtered by chain, owner and member', async () => {
      expect(await get('/budget-accounts', 'BudgetAccountList')).toEqual((await accountSql(sql`WHERE NOT a.hidden`, sql`LIMIT 10`)).map(asItem));
      expect(await get('/budget-accounts?page=3&pageSize=7', 'BudgetAccountList')).toEqual(
        (await accountSql(sql`WHERE NOT a.hidden`, sql`LIMIT 7 OFFSET 14`)).map(asItem),
      );
      expect(await get('/budget-accounts?chainId=10&pageSize=100', 'BudgetAccountList')).toEqual(
        (await accountSql(sql`WHERE NOT a.hidden AND a.chain_id = 10`, sql`LIMIT 100`)).map(asItem),
      );
      const [owned] = await rows<{ owner: string }>(
        sql`SELECT owner FROM budget_accounts WHERE NOT hidden GROUP BY owner ORDER BY count(*) DESC, owner LIMIT 1`,
      );
      expect(await get(`/budget-accounts?owner=${owned!.owner}&pageSize=100`, 'BudgetAccountList')).toEqual(
        (await accountSql(sql`WHERE NOT a.hidden AND a.owner = ${owned!.owner}`, sql`LIMIT 100`)).map(asItem),
      );
      const member = await get<BudgetAccountList>(`/budget-accounts?member=${DEMO_USER_ADDRESS}&pageSize=100`, 'BudgetAccountList');
      expect(member).toEqual(
        (
          await accountSql(
            sql`WHERE NOT a.hidden AND EXISTS (SELECT 1 FROM budget_account_members AS f WHERE f.chain_id = a.chain_id
                  AND f.account_address = a.address AND f.member_address = ${DEMO_USER_ADDRESS})`,
            sql`LIMIT 100`,
          )
        ).map(asItem),
      );
      expect(member.length).toBeGreaterThan(0);
    });

    it('finds one account by ID, hidden ones too, with ownerEmail null', async () => {
      const [hidden] = await accountSql(sql`WHERE a.hidden`);
      const body = await get(`/budget-accounts/${String(hidden!.chain_id)}:${String(hidden!.address).toUpperCase().replace('0X', '0x')}`, 'BudgetAccount');
      const { hidden: isHidden, label, members, deprecated, ...head } = asItem(hidden!);
      expect(body).toEqual({ ...head, ownerEmail: null, hidden: isHidden, label, members, deprecated });
      await expectError('/budget-accounts/8453:0x00000000000000000000000000000000000000ff', 404, /not found/);
    });

    it('never serves an e-mail address, though some are stored', async () => {
      const [stored] = await rows<{ count: number }>(
        sql`SELECT (SELECT count(*) FROM budget_accounts WHERE owner_email IS NOT NULL)
                 + (SELECT count(*) FROM budget_account_members WHERE email IS NOT NULL) AS count`,
      );
      expect(Number(stored!.count)).toBeGreaterThan(0);
      const [withEmail] = await rows<{ chain_id: number; address: string }>(
        sql`SELECT chain_id, address FROM budget_accounts WHERE owner_email IS NOT NULL LIMIT 1`,
      );
      const bodies = [
        JSON.stringify(await get(`/budget-accounts/${withEmail!.chain_id}:${withEmail!.address}`)),
        ...(await Promise.all([1, 2, 3, 4, 5].map(async (page) => JSON.stringify(await get(`/budget-accounts?pageSize=100&page=${page}`))))),
      ];
      for (const body of bodies) expect(body).not.toMatch(/@example\.com/);
    });

    it('refuses bad input', async () => {
      await expectError('/budget-accounts/0xa904ef32d569e2ada8f4de6244bf68f36fa219f6', 400, /id must be <chain_id>:<address>/);
      await expectError('/budget-accounts/99999999999:0xa904ef32d569e2ada8f4de6244bf68f36fa219f6', 400, /id/);
      await expectError('/budget-accounts?pageSize=101', 400, /pageSize/);
      await expectError('/budget-accounts?member=0x12', 400, /member/);
      await expectError('/budget-accounts?owner=bob', 400, /owner/);
      await expectError('/budget-accounts?chainId=-1', 400, /chainId/);
    });
  });
});
