#!/usr/bin/env node
// Makes sure the engines the store tests start for themselves exist: Debian's PostgreSQL and
// haproxy, and Prometheus's promtool, which checks the shipped alert rules and a real scrape of
// the metrics port. The tests start their own throw-away servers on free ports
// (apps/bff/src/test/engines); this only installs the programs. The tests need only
// promtool from the prometheus package: its install script asks to start the server as a
// service, which a container's policy-rc.d refuses and nothing here relies on. Used by
// `pnpm test` and `pnpm bench`; run alone: `node scripts/ensure-engines.mjs`.
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { ensureDebianPackages, postgresBinDir } from './debian-packages.mjs';

const onPath =
  (...paths) =>
  () =>
    paths.some((p) => existsSync(p));

export function ensureEngines() {
  ensureDebianPackages(
    [
      { name: 'postgresql', installed: () => postgresBinDir() !== undefined },
      { name: 'haproxy', installed: onPath('/usr/sbin/haproxy', '/usr/bin/haproxy') },
      { name: 'prometheus', installed: onPath('/usr/bin/promtool'), recommends: false },
    ],
    'the PostgreSQL, load-balancer and Prometheus-rules tests',
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) ensureEngines();
