import { sql } from 'drizzle-orm';
import { pino } from 'pino';
import { type Address, zeroAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { queryRows } from '../../src/db/client.js';
import { createIndexer } from '../../src/indexer/indexer.js';
import { chainTokenId } from '../../src/indexer/tokens.js';
import { type BoostSpec, createBoost, type Deployed, deploy, type LocalChain, send } from '../../scripts/chain/local-chain.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { expectToMatchSchema } from '../helpers/schema.js';
import { importRecords, SETTINGS, startChain } from './chain-fixture.js';
import { type FaultyRpc, startFaultyRpc } from './faulty-rpc.js';

/**
 * Token facts end to end on anvil: the indexer reads decimals, symbol and name from the contract of
 * each token a new campaign pays, once, and the API serves them in the incentives' metadata; a token
 * that answers nothing sensible is logged and served as `metadata: null`; an import sets a token's
 * display fields but never the decimals read from the chain.
 */

const lower = (address: string) => address.toLowerCase();

interface Metadata {
  id: string;
  chainId: number;
  address: string;
  decimals: number;
  name: string;
  symbol: string;
  imageUri: string;
}
type Detail = { incentives: { asset: string; metadata: Metadata | null }[] };

describe('token facts from the chain', () => {
  let chain: LocalChain;
  let deployed: Deployed;
  let proxy: FaultyRpc;
  let database: TestDatabase;
  let app: App;
  let token: Address;
  let broken: Address;
  let imported: Address;
  const warnings: Record<string, unknown>[] = [];
  const campaign = (boost: number) => `${chain.chainId}:${lower(deployed.core)}:${boost}`;

  const incentive = (asset: Address) => deploy(chain, 'TestERC20Incentive', [asset, 0, 10n ** 6n, 100n]);
  const boostPaying = async (incentives: Address[]) => {
    const spec: BoostSpec = {
      owner: chain.account,
      budget: chain.account,
      validator: deployed.core,
      action: deployed.action,
      allowList: { address: deployed.openAllowList, owner: zeroAddress, members: [] },
      incentives,
    };
    await createBoost(chain, deployed.core, spec);
  };
  const indexOnce = async () => {
    const logger = pino({ level: 'warn' }, { write: (line: string) => warnings.push(JSON.parse(line) as Record<string, unknown>) });
    const indexer = createIndexer([{ chainId: chain.chainId, rpcUrl: proxy.url, cores: [{ address: deployed.core, startBlock: 0n }] }], database, SETTINGS, logger);
    await indexer.run({ once: true });
  };
  const detail = async (boost: number) => {
    const response = await app.inject({ url: `/campaigns/${campaign(boost)}` });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json<Detail>();
    expectToMatchSchema(body, 'CampaignDetail');
    return body;
  };
  const tokenRow = async (address: Address) =>
    (
      await queryRows<{ decimals: number; name: string; decimals_from_chain: boolean }>(
        database.db,
        sql`SELECT decimals, name, decimals_from_chain FROM tokens WHERE chain_id = ${chain.chainId} AND address = ${lower(address)}`,
      )
    )[0];

  beforeAll(async () => {
    ({ chain, deployed } = await startChain());
    proxy = await startFaultyRpc(chain.url);
    token = await deploy(chain, 'TestToken', ['Test Dollar', 'TUSD', 6]);
    broken = await deploy(chain, 'TestBrokenToken');
    imported = await deploy(chain, 'TestToken', ['Chain Name', 'CHN', 8]);
    database = await createTestDatabase();
    // A token the operator imported before the indexer met it, with decimals of their own.
    await importRecords(database, [
      {
        kind: 'token',
        chainId: chain.chainId,
        address: imported,
        id: '66666666-6666-4666-8666-666666666666',
        name: 'Imported Name',
        symbol: 'IMP',
        decimals: 18,
        imageUri: 'https://example.com/imp.png',
        isWhitelisted: true,
        priceUsd: '3',
      },
    ]);
    await boostPaying([await incentive(token), await incentive(broken), await incentive(imported)]);
    await indexOnce();
    app = await buildTestApp(database);
  });

  afterAll(async () => {
    await app?.close();
    await database?.close();
    await proxy?.close();
    await chain?.stop();
  });

  it("serves the facts TestToken's contract answers as the incentive's metadata, in every view", async () => {
    const expected = {
      id: chainTokenId(chain.chainId, token),
      chainId: chain.chainId,
      address: lower(token),
      decimals: 6,
      name: 'Test Dollar',
      symbol: 'TUSD',
      // The chain has no image.
      imageUri: '',
    };
    expect((await detail(0)).incentives[0]!.metadata).toEqual(expected);
    expect(await tokenRow(token)).toEqual({ decimals: 6, name: 'Test Dollar', decimals_from_chain: true });

    const list = await app.inject({ url: '/campaigns?tokenWhitelist=false' });
    expect(list.statusCode).toBe(200);
    expectToMatchSchema(list.json(), 'CampaignList');
    expect(list.json<{ campaigns: Detail[] }>().campaigns[0]!.incentives[0]!.metadata).toEqual(expected);

    const rewards = await app.inject({ url: '/reward-kit/campaigns?tokenWhitelist=false' });
    expect(rewards.statusCode).toBe(200);
    expectToMatchSchema(rewards.json(), 'RewardList');
    const entry = rewards.json<{ campaigns: { id: string; incentives: Record<string, unknown>[] }[] }>().campaigns.find((item) => item.id === campaign(0));
    expect(entry!.incentives[0]).toMatchObject({ tokenSymbol: 'TUSD', rewardAmountFormatted: '1', metadata: expected });
    // No image: left out, as an entry's strings the public API declares non-nullable are when unknown.
    expect(entry!.incentives[0]).not.toHaveProperty('tokenImageUri');
  });

  it('logs TestBrokenToken with what failed and stores no metadata for it; the campaign is still served', async () => {
    const incentives = (await detail(0)).incentives;
    expect(incentives[1]).toMatchObject({ asset: lower(broken), metadata: null });
    expect(await tokenRow(broken)).toBeUndefined();
    expect(warnings).toContainEqual(
      expect.objectContaining({
        chainId: chain.chainId,
        address: lower(broken),
        problems: ['decimals() reverted', 'symbol() returned text with control characters', 'name() reverted'],
      }),
    );
  });

  it("gives a token imported before indexing the chain's decimals, and keeps the import's id, name, symbol and image", async () => {
    expect((await detail(0)).incentives[2]!.metadata).toEqual({
      id: '66666666-6666-4666-8666-666666666666',
      chainId: chain.chainId,
      address: lower(imported),
      decimals: 8,
      name: 'Imported Name',
      symbol: 'IMP',
      imageUri: 'https://example.com/imp.png',
    });
  });

  it('lets an import after indexing change the display name, symbol and image, never the decimals', async () => {
    await importRecords(database, [
      {
        kind: 'token',
        chainId: chain.chainId,
        address: token,
        id: chainTokenId(chain.chainId, token),
        name: 'Display Dollar',
        symbol: 'DSP',
        decimals: 18,
        imageUri: 'https://example.com/dsp.png',
        isWhitelisted: true,
      },
    ]);
    expect((await detail(0)).incentives[0]!.metadata).toMatchObject({
      decimals: 6,
      name: 'Display Dollar',
      symbol: 'DSP',
      imageUri: 'https://example.com/dsp.png',
    });
    expect(await tokenRow(token)).toMatchObject({ decimals: 6, decimals_from_chain: true });
  });

  it('reads a token known from the chain no more; one without metadata is read again by the next campaign paying it', async () => {
    const calls = new Map<string, number>();
    // decimals(), symbol() and name(): the facts (an incentive's balanceOf is read on every rewrite).
    const facts = ['0x313ce567', '0x95d89b41', '0x06fdde03'];
    proxy.beforeForward = async (request) => {
      const call = request.method === 'eth_call' ? request.params?.[0] : undefined;
      if (call?.to && facts.includes(String(call.data).slice(0, 10))) calls.set(lower(call.to), (calls.get(lower(call.to)) ?? 0) + 1);
    };
    await boostPaying([await incentive(token), await incentive(imported), await incentive(broken)]);
    await indexOnce();
    proxy.beforeForward = undefined;
    expect((await detail(1)).incentives.map((entry) => entry.metadata?.decimals ?? null)).toEqual([6, 8, null]);
    expect(calls.get(lower(token))).toBeUndefined();
    expect(calls.get(lower(imported))).toBeUndefined();
    expect(calls.get(lower(broken))).toBe(3);
  });

  it('does not read a token without metadata again when a top-up rewrites the campaign paying it', async () => {
    const paying = await incentive(broken);
    await boostPaying([paying]);
    await indexOnce();
    const limitOf = async () =>
      (
        await queryRows<{ limit: string }>(
          database.db,
          sql`SELECT i.params->>'limit' AS limit FROM incentives AS i JOIN campaigns AS c ON c.key = i.campaign_key
               WHERE c.chain_id = ${chain.chainId} AND i.asset_address = ${lower(broken)} ORDER BY c.key DESC LIMIT 1`,
        )
      )[0]?.limit;
    const before = await limitOf();
    // decimals(), symbol() and name(); the incentive's balanceOf on the token is read on every rewrite.
    const facts = ['0x313ce567', '0x95d89b41', '0x06fdde03'];
    const calls: string[] = [];
    proxy.beforeForward = async (request) => {
      const call = request.method === 'eth_call' ? request.params?.[0] : undefined;
      const selector = String(call?.data).slice(0, 10);
      if (call?.to && lower(call.to) === lower(broken) && facts.includes(selector)) calls.push(selector);
    };
    await send(chain, paying, 'TestERC20Incentive', 'topup', [10n ** 6n]);
    await indexOnce();
    proxy.beforeForward = undefined;
    // The range rewrote the campaign with the incentive read again, and left the token alone.
    expect(Number(await limitOf())).toBe(Number(before) + 1);
    expect(calls).toEqual([]);
  });
});
