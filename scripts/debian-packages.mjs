// Installs Debian packages the tests and benchmarks need when their programs are missing
// (as root, as CI runs): Chromium for the browser flows, PostgreSQL and haproxy for
// the store contracts and the two-replica integration test, Prometheus for promtool. One
// apt-get update, and one install for all of them (two when some want no recommends).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';

function run(command, args, env) {
  return spawnSync(command, args, { stdio: 'inherit', env }).status ?? 1;
}

/** The newest installed PostgreSQL's bin directory (Debian: /usr/lib/postgresql/N/bin). */
export function postgresBinDir() {
  if (process.env.POSTGRES_BIN_DIR) return process.env.POSTGRES_BIN_DIR;
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .filter((name) => /^\d+$/.test(name) && existsSync(`${base}/${name}/bin/initdb`))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? `${base}/${versions[0]}/bin` : undefined;
}

/**
 * `wanted`: `{ name, installed(): boolean, recommends?: false }` per Debian package. Installs
 * the missing ones, or exits with a message saying what to install when this is not a root
 * Debian machine. `recommends: false` installs that package without its recommended ones
 * (prometheus recommends prometheus-node-exporter, a daemon the tests do not want).
 */
export function ensureDebianPackages(wanted, purpose) {
  const absent = wanted.filter((p) => !p.installed());
  const missing = absent.map((p) => p.name);
  if (missing.length === 0) return;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot || !existsSync('/usr/bin/apt-get')) {
    console.error(
      `Missing for ${purpose}: ${missing.join(', ')}. Install Debian's packages (apt-get install ${missing.join(' ')}).`,
    );
    process.exit(1);
  }
  console.log(`Installing Debian ${missing.join(', ')} for ${purpose}…`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (run('apt-get', ['update', '-qq'], env) !== 0) process.exit(1);
  const bare = absent.filter((p) => p.recommends === false).map((p) => p.name);
  const full = missing.filter((name) => !bare.includes(name));
  const install = (names, flags = []) =>
    names.length === 0 || run('apt-get', ['install', '-y', '-qq', ...flags, ...names], env) === 0;
  if (!install(full) || !install(bare, ['--no-install-recommends'])) process.exit(1);
}
