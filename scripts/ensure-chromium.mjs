#!/usr/bin/env node
// Makes sure a headless Chromium exists for the browser tests and the browser benchmark:
// Debian's `chromium-headless-shell` (Chromium's build for automation, from Debian's chromium
// sources, as Playwright drives by default for headless runs), installed with apt-get when
// missing (as root, as CI runs). Against the full `chromium` in headless mode it cost 15% less
// CPU on the screens' browser test (153 s of the machine's CPU against 180), the same results
// and screenshots. Used by
// `pnpm test` (run-tests.mjs) and `pnpm bench`; run alone: `node scripts/ensure-chromium.mjs`.
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { ensureDebianPackages } from './debian-packages.mjs';

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell';

export function ensureChromium() {
  ensureDebianPackages(
    [{ name: 'chromium-headless-shell', installed: () => existsSync(chromiumPath) }],
    `the browser tests and benchmark (or set CHROMIUM_PATH; looked at ${chromiumPath})`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) ensureChromium();
