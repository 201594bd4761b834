import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDatabase } from '../helpers/test-server.js';
import { createScratchDatabase, migrateAndSeed, postgresAdminUrl, type ScratchDatabase, SKIP_WITHOUT_POSTGRES, withClient } from './helpers/postgres.js';
import { eventually, get, type ServerProcess, startServer } from './helpers/server-process.js';

/**
 * The read-only role of docs/operations.md, for real: its SQL block runs on a scratch database, the built server
 * migrates at start through MIGRATE_DATABASE_URL (the owner) and serves every route through
 * DATABASE_URL as a role that may only connect and select.
 */
const adminUrl = postgresAdminUrl();
if (!adminUrl) console.warn(SKIP_WITHOUT_POSTGRES);

async function readOnlyRoleSql(): Promise<string> {
  const operations = await readFile(new URL('../../docs/operations.md', import.meta.url), 'utf8');
  const block = /<!-- read-only-role:start -->\s*```sql\n([\s\S]*?)```\s*<!-- read-only-role:end -->/.exec(operations);
  if (!block?.[1]) throw new Error('docs/operations.md has no read-only-role SQL block');
  return block[1];
}

describe.skipIf(!adminUrl)('black box: the API as a read-only role', () => {
  const role = `campaign_api_${randomBytes(3).toString('hex')}`;
  let database: ScratchDatabase;
  let server: ServerProcess | undefined;
  let roleCreated = false;

  beforeAll(async () => {
    database = await createScratchDatabase(adminUrl!);
    const owner = new URL(adminUrl!).username || 'postgres';
    const sql = (await readOnlyRoleSql())
      .replaceAll('campaign_api', role)
      .replaceAll('campaign_owner', `"${owner}"`)
      .replaceAll('DATABASE campaigns', `DATABASE "${database.name}"`);
    await withClient(database.url, (client) => client.query(sql));
    roleCreated = true;
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
    if (roleCreated) {
      await withClient(adminUrl!, async (client) => {
        await client.query(`DROP OWNED BY ${role}`);
        await client.query(`DROP ROLE ${role}`);
      });
    }
  });

  it('migrates with the owner URL at start, then serves all six routes with only CONNECT and SELECT', async () => {
    const readOnlyUrl = Object.assign(new URL(withDatabase(adminUrl!, database.name)), { username: role, password: 'change-me' }).toString();

    // The role really cannot write or create: otherwise this test would prove nothing.
    const denied = await withClient(readOnlyUrl, (client) => client.query('CREATE TABLE intruder (id int)')).catch(
      (error: { code?: string }) => error.code,
    );
    expect(denied).toBe('42501');

    server = await startServer({ DATABASE_URL: readOnlyUrl, MIGRATE_DATABASE_URL: database.url, MIGRATE_ON_START: 'true' });
    expect(await eventually(async () => (await get(`${server!.url}/health/ready`)).status === 200, 15_000), server.logs()).toBe(true);

    // Data and a token, written as the owner (the seed and token commands need a writing role).
    const token = await migrateAndSeed(database.url);
    const campaignId = await withClient(readOnlyUrl, async (client) => {
      const { rows } = await client.query<{ public_id: string }>('SELECT public_id FROM campaigns ORDER BY key LIMIT 1');
      return rows[0]!.public_id;
    });
    const deleted = await withClient(readOnlyUrl, (client) => client.query(`DELETE FROM campaigns WHERE public_id = $1`, [campaignId])).catch(
      (error: { code?: string }) => error.code,
    );
    expect(deleted).toBe('42501');

    const auth = { authorization: `Bearer ${token}` };
    for (const [path, headers] of [
      ['/campaigns', {}],
      [`/campaigns/${campaignId}`, {}],
      ['/reward-kit/trending?sortBy=24h', {}],
      ['/explore/contracts', {}],
      ['/campaigns/accesslists', auth],
      ['/users/profile', auth],
    ] as const) {
      const answer = await get(server.url + path, headers);
      expect(answer.status, `${path}: ${answer.body}`).toBe(200);
    }
    const trending = JSON.parse((await get(`${server.url}/reward-kit/trending?sortBy=24h`)).body) as { trendingCampaigns: unknown[] };
    expect(trending.trendingCampaigns.length).toBeGreaterThan(0);
  });
});
