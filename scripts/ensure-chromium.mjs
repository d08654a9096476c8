#!/usr/bin/env node
// Makes sure a headless Chromium exists for the browser tests and the browser benchmark:
// Debian's package, installed with apt-get when missing (as root, as CI runs). Used by
// `pnpm test` (run-tests.mjs) and `pnpm bench`; run alone: `node scripts/ensure-chromium.mjs`.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

function run(command, args, env) {
  return spawnSync(command, args, { stdio: 'inherit', env }).status ?? 1;
}

export function ensureChromium() {
  if (existsSync(chromiumPath)) return;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot || !existsSync('/usr/bin/apt-get')) {
    console.error(
      `No Chromium at ${chromiumPath}. Install Debian's "chromium" package (apt-get install chromium) or set CHROMIUM_PATH.`,
    );
    process.exit(1);
  }
  console.log('Installing Debian chromium for the browser tests and benchmark…');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (run('apt-get', ['update', '-qq'], env) !== 0) process.exit(1);
  if (run('apt-get', ['install', '-y', '-qq', 'chromium'], env) !== 0) process.exit(1);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) ensureChromium();
