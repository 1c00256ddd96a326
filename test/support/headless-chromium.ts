import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

// The machine's Chromium, headless, as the browser tests look at pages (the certificate, the Temporal UI):
// no sandbox, no GPU, nothing fetched in the background.

export const chromiumPath = '/usr/bin/chromium';
export const chromiumAvailable = existsSync(chromiumPath);

/** Launches it; `extraArgs` after the common ones. */
export function launchHeadlessChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      ...extraArgs,
    ],
  });
}
