import { afterAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../helpers/chromium.js';
import { eventually, type ServerProcess, startServer } from './helpers/server-process.js';

/**
 * What a newcomer does: `npm start` with no configuration (the built server on the embedded
 * database, here in memory as in first-start.test.ts: where it keeps its files is not what this is
 * about), then a page that opens `new EventSource('/events')`. The demo's live claims must reach it:
 * a `claim.written` event arrives in real Chromium. The interval is short only so that the test
 * does not wait for the default one.
 */
const chromiumFound = hasChromium('live demo test');

interface ClaimWritten {
  campaignId: string;
  txHash: string;
  claimedAt: string;
  valuePending: boolean;
}

describe.skipIf(!chromiumFound)('black box: the zero-config demo streams its live claims to a browser', () => {
  let server: ServerProcess | undefined;
  let closeBrowser: (() => Promise<void>) | undefined;

  afterAll(async () => {
    await closeBrowser?.();
    await server?.stop();
  });

  it('a page on the server gets claim.written events through EventSource, and the server stops cleanly', async () => {
    server = await startServer({ PGLITE_DATA_DIR: 'memory://', LOG_LEVEL: 'info', LOG_FORMAT: 'json', DEMO_LIVE_INTERVAL_MS: '500' });
    const running = server;
    const ready = await eventually(async () => /"msg":"ready"/.test(running.logs()), 60_000, 200);
    expect(ready, `the server did not log ready:\n${running.logs()}`).toBe(true);
    // The start log says what is happening and how to watch it.
    expect(await eventually(async () => /demo: a new claim every 0\.5 s[^"]*curl -N http:\/\/127\.0\.0\.1:\d+\/events/.test(running.logs()), 10_000)).toBe(true);

    let browser;
    ({ browser, close: closeBrowser } = await launchChromium());
    const page = await browser.newPage();
    // A newcomer's page on the server's origin (served by the browser itself: the server's own pages
    // forbid inline scripts), with the two lines a newcomer would write.
    const pageUrl = `${running.url}/newcomer.html`;
    await page.route(pageUrl, (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: `<!doctype html><title>live demo</title><script>
window.received = [];
new EventSource('/events').addEventListener('claim.written', (event) => window.received.push(JSON.parse(event.data)));
</script>`,
      }),
    );
    await page.goto(pageUrl);
    await page.waitForFunction('window.received.length > 0', undefined, { timeout: 60_000 });
    const [claim] = await page.evaluate(() => (globalThis as unknown as { received: ClaimWritten[] }).received);
    expect(claim).toMatchObject({ valuePending: false });
    expect(claim!.campaignId).toMatch(/^\d+:0x[0-9a-f]{40}:\d+$/);
    expect(claim!.txHash).toMatch(/^0x[0-9a-f]{64}$/);

    // The claim counts in its campaign, as any reader sees it.
    const activity = await fetch(`${running.url}/campaigns/${claim!.campaignId}/activity?pageSize=100`).then(
      (response) => response.json() as Promise<{ activityEvents: { txHash: string }[] }>,
    );
    expect(activity.activityEvents.map((event) => event.txHash)).toContain(claim!.txHash);

    await closeBrowser();
    closeBrowser = undefined;
    // The writer stops before the database closes: a clean exit, and no warning or error on the way.
    expect(await running.stop()).toBe(0);
    server = undefined;
    const problems = running
      .logs()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .filter((line) => line.level >= 40);
    expect(problems).toEqual([]);
  }, 180_000);
});
