import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

/**
 * Debian's Chromium driven by playwright-core, for the browser tests. They skip with a message
 * where it is missing (`.ci/run` installs it).
 */
export const CHROMIUM = '/usr/bin/chromium';

export function hasChromium(testName: string): boolean {
  const found = existsSync(CHROMIUM);
  if (!found) console.log(`${testName} skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`);
  return found;
}

/** A headless browser with a fresh profile per run: nothing cached or remembered from an earlier run. */
export async function launchChromium(): Promise<{ browser: BrowserContext; close: () => Promise<void> }> {
  const profile = await mkdtemp(join(tmpdir(), 'campaign-chromium-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    browser,
    close: async () => {
      await browser.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
