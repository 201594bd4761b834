import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { anvilBinary } from '../../scripts/chain/local-chain.js';

/**
 * `npm run chain:demo` as a newcomer runs it: the protocol on anvil, the indexer, and the price job
 * asking the local DefiLlama stand-in. Nothing is imported with a price, so every USD figure the API
 * shows came through the price job.
 */
describe.skipIf(anvilBinary() === null)('npm run chain:demo', () => {
  let demo: ChildProcess | undefined;
  afterAll(async () => {
    if (!demo || demo.exitCode !== null) return;
    const exited = new Promise((resolve) => demo!.once('exit', resolve));
    demo.kill('SIGINT');
    await exited;
  });

  it('serves non-zero USD figures that the price job got from the local price stand-in', async () => {
    // No settings but the ports (any free one, as the demo says which it took): the embedded database, as a newcomer has it.
    demo = spawn(process.execPath, ['--import', 'tsx', 'scripts/chain/demo.ts'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', INDEXER_METRICS_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    demo.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    demo.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<never>((_resolve, reject) => demo!.once('exit', (code) => reject(new Error(`chain:demo exited (${code}):\n${output}`))));
    await Promise.race([expect.poll(() => output, { timeout: 120_000, interval: 500 }).toMatch(/Ctrl-C stops/), exited]);

    const api = /API: +(http:\/\/127\.0\.0\.1:\d+)\/docs/.exec(output)?.[1];
    expect(api).toBeDefined();
    const campaign0 = /\/campaigns\/(31337:0x[0-9a-f]{40}:0)/.exec(output)?.[1];
    expect(campaign0).toBeDefined();
    type Trending = { trendingCampaigns: { id: string; usdDistributed1Hr: number }[] };
    // The claims made before the indexer started, valued at their blocks' times by the backfill.
    await expect
      .poll(
        async () => {
          const trending = (await (await fetch(`${api}/reward-kit/trending?sortBy=1h&pageSize=10`)).json()) as Trending;
          return trending.trendingCampaigns.find((entry) => entry.id === campaign0)?.usdDistributed1Hr ?? 0;
        },
        { timeout: 60_000, interval: 1000 },
      )
      .toBeGreaterThan(0);
    const detail = (await (await fetch(`${api}/campaigns/${campaign0}`)).json()) as { availableBudgetUsd: string | null };
    expect(Number(detail.availableBudgetUsd)).toBeGreaterThan(0);
  }, 200_000);
});
