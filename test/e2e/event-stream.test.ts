import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { sql } from 'drizzle-orm';
import type { BrowserContext, Page } from 'playwright-core';
import type { Address, Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { queryRows } from '../../src/db/client.js';
import { buildTestApp } from '../helpers/app.js';
import { hasChromium, launchChromium } from '../helpers/chromium.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { indexOnce } from '../chain/chain-fixture.js';
import { CLAIMANTS, claim, startWorld, type World } from '../protocol/world.js';

/**
 * The push path end to end, on the protocol's own bytecode: a page on another origin opens an
 * EventSource in Chromium; a claim is made on a local chain (anvil) and indexed, and arrives; the
 * stream is cut and the browser reconnects with Last-Event-ID, getting the claim made meanwhile
 * once; a reorganisation that orphans a claim delivers its removal. Read-your-writes with the real
 * indexer: an answer asked for the claim's block includes it, and without the indexer it is a 503.
 */
const chromiumFound = hasChromium('event stream e2e test');
const NONE: Hex = '0x0000000000000000000000000000000000000000000000000000000000000000';

interface Received {
  type: string;
  id: string;
  data: { txHash: string; claimant: string; blockNumber: number; campaignId: string };
}

function frontendPage(streamUrl: string): string {
  return `<!doctype html><html><head><title>claims</title></head><body><script>
window.received = [];
window.opened = 0;
const source = new EventSource(${JSON.stringify(streamUrl)});
for (const type of ['claim.written', 'claim.removed', 'refetch']) {
  source.addEventListener(type, (event) => window.received.push({ type, id: event.lastEventId, data: JSON.parse(event.data) }));
}
source.onopen = () => { window.opened++; };
</script></body></html>`;
}

describe.skipIf(!chromiumFound)('claims pushed to a browser (EventSource, SDK bytecode on anvil)', () => {
  let world: World;
  let core: Address;
  let database: TestDatabase;
  let app: App;
  let apiUrl: string;
  let frontend: Server;
  let browser: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  let page: Page;
  let campaignId: string;
  const streamSockets: Socket[] = [];
  /** The Last-Event-ID each stream request came with. */
  const resumedFrom: (string | undefined)[] = [];

  const received = () => page.evaluate(() => (globalThis as unknown as { received: Received[] }).received);
  const waitFor = (predicate: string) => page.waitForFunction(predicate, undefined, { timeout: 20_000 });
  const txHashesOnChain = async () =>
    (await queryRows<{ tx_hash: string }>(database.db, sql`SELECT tx_hash FROM claims ORDER BY id`)).map((row) => row.tx_hash);

  beforeAll(async () => {
    world = await startWorld();
    core = world.protocol.core.assertValidAddress();
    database = await createTestDatabase();
    await indexOnce(world.chain, core, database);
    app = await buildTestApp(database, { EVENTS_POLL_MS: '50', INDEXED_BLOCKS_POLL_MS: '50', READ_YOUR_WRITES_MAX_WAIT_MS: '8000' }, (instance) => {
      instance.addHook('onRequest', async (request) => {
        if (!request.url.startsWith('/events') || request.method !== 'GET') return;
        streamSockets.push(request.raw.socket);
        resumedFrom.push(request.headers['last-event-id'] as string | undefined);
      });
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    apiUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    campaignId = `${world.chain.chainId}:${core.toLowerCase()}:${world.boosts[0]!.id}`;
    const html = frontendPage(`${apiUrl}/events?campaignId=${campaignId}`);
    frontend = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(html));
    await new Promise<void>((resolve) => frontend.listen(0, '127.0.0.1', resolve));
    ({ browser, close: closeBrowser } = await launchChromium());
    page = await browser.newPage();
    // Another host name and port: a different origin from the API's.
    await page.goto(`http://localhost:${(frontend.address() as AddressInfo).port}/`);
    await waitFor('window.opened === 1');
  }, 180_000);

  afterAll(async () => {
    await closeBrowser?.();
    await new Promise((resolve) => (frontend ? frontend.close(resolve) : resolve(undefined)));
    await app?.close();
    await database?.close();
    await world?.chain.stop();
  });

  it('delivers a claim made on the chain once the indexer writes it', async () => {
    const [c1] = CLAIMANTS;
    await claim(world, world.boosts[0]!, 0, c1, NONE);
    const block = Number(await world.chain.public.getBlockNumber());
    // Read your writes: asked before the indexer runs, answered once it has written the claim's block.
    const answer = app.inject(`/campaigns/${campaignId}?minBlock=${world.chain.chainId}:${block}`);
    await indexOnce(world.chain, core, database);
    const response = await answer;
    expect(response.statusCode).toBe(200);
    expect(response.json<{ incentives: { totalClaims: string }[] }>().incentives[0]!.totalClaims).toBe('1');
    expect(response.headers['indexed-blocks']).toMatch(new RegExp(`^${world.chain.chainId};block=(\\d+);`));

    await waitFor("window.received.some((event) => event.type === 'claim.written')");
    const [event] = await received();
    const [txHash] = await txHashesOnChain();
    expect(event).toMatchObject({ type: 'claim.written', data: { txHash, claimant: c1.address.toLowerCase(), blockNumber: block, campaignId } });
  }, 60_000);

  it('resumes after a forced disconnect with the claim made meanwhile, once', async () => {
    const [, c2] = CLAIMANTS;
    for (const socket of streamSockets.splice(0)) socket.destroy();
    await claim(world, world.boosts[0]!, 0, c2, NONE);
    await indexOnce(world.chain, core, database);
    // The browser reconnects by itself (retry: 1 s) and sends the id of the last event it got.
    await waitFor('window.opened === 2');
    await waitFor("window.received.filter((event) => event.type === 'claim.written').length === 2");
    await new Promise((resolve) => setTimeout(resolve, 300));
    const written = (await received()).filter((event) => event.type === 'claim.written');
    expect(written.map((event) => event.data.txHash)).toEqual(await txHashesOnChain());
    // The id of the last event it got: the claim's, or the campaign.changed that came with it (the page has no listener for it).
    expect(resumedFrom).toEqual([undefined, expect.stringMatching(/^\d+-\d+$/)]);
    expect(Number(resumedFrom[1]!.split('-')[1])).toBeGreaterThanOrEqual(Number(written[0]!.id.split('-')[1]));
  }, 60_000);

  it('delivers the removal of a claim a reorganisation orphans', async () => {
    const snapshot = await world.chain.snapshot();
    const [, , c3] = CLAIMANTS;
    await claim(world, world.boosts[0]!, 0, c3, NONE);
    await indexOnce(world.chain, core, database);
    await waitFor("window.received.filter((event) => event.type === 'claim.written').length === 3");
    const orphaned = (await received()).at(-1)!.data.txHash;
    await world.chain.revert(snapshot);
    await world.chain.mine(3);
    await indexOnce(world.chain, core, database);
    await waitFor("window.received.some((event) => event.type === 'claim.removed')");
    const removed = (await received()).filter((event) => event.type === 'claim.removed');
    expect(removed.map((event) => event.data.txHash)).toEqual([orphaned]);
    expect(await txHashesOnChain()).not.toContain(orphaned);
  }, 60_000);

  it('answers 503 with Retry-After when the block asked for is not written in time (the indexer stopped)', async () => {
    const block = Number(await world.chain.public.getBlockNumber()) + 100;
    const started = Date.now();
    const response = await app.inject(`/campaigns/${campaignId}?minBlock=${world.chain.chainId}:${block}`);
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    const { error } = response.json<{ error: string }>();
    expect(error).toMatch(new RegExp(`^block ${block} of chain ${world.chain.chainId} is not indexed yet`));
    // Its Indexed-Blocks names the block its message says the data is indexed through.
    const through = /indexed through (\d+);/.exec(error)?.[1];
    expect(response.headers['indexed-blocks']).toMatch(new RegExp(`^${world.chain.chainId};block=${through};`));
    expect(Date.now() - started).toBeGreaterThanOrEqual(7_500);
  }, 60_000);
});
