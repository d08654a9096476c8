#!/usr/bin/env node
// Makes sure a headless Chromium exists for the browser tests and the browser benchmark:
// Debian's package, installed with apt-get when missing (as root, as CI runs). Used by
// `pnpm test` (run-tests.mjs) and `pnpm bench`; run alone: `node scripts/ensure-chromium.mjs`.
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { ensureDebianPackages } from './debian-packages.mjs';

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function ensureChromium() {
  ensureDebianPackages(
    [{ name: 'chromium', installed: () => existsSync(chromiumPath) }],
    `the browser tests and benchmark (or set CHROMIUM_PATH; looked at ${chromiumPath})`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) ensureChromium();
