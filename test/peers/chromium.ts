import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';

/**
 * A real headless browser for the flows a person runs in one: Debian's `chromium` (installed by
 * `npm test` as the other peers' packages are, test/peers/debian-packages.js), driven by
 * playwright-core, which downloads no browser of its own. Each launch gets a fresh profile in a
 * temporary directory and the network features that would reach outside loopback turned off, so
 * the browser talks to the test's servers only.
 */
export const CHROMIUM = '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface RealBrowser {
  context: BrowserContext;
  stop(): Promise<void>;
}

export async function startChromium(): Promise<RealBrowser> {
  const { chromium } = await import('playwright-core');
  const profile = await mkdtemp(join(tmpdir(), 'connector-auth-chromium-'));
  // A persistent context is the way to hand Chromium its own --user-data-dir (a fresh one per launch).
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    timeout: 60_000,
  });
  const browser: Browser | null = context.browser();
  return {
    context,
    stop: async () => {
      await context.close();
      await browser?.close().catch(() => undefined);
      await rm(profile, { recursive: true, force: true });
    },
  };
}
