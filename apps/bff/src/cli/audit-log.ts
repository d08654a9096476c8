// `pnpm audit-log verify [--head <id>:<hash> …]`: checks the audit trail's hash chain, and that
// it still reaches each head kept earlier. `pnpm audit-log head`: prints the head to keep.
// Reads the BFF's own configuration: DATABASE_URL (PostgreSQL) when set, else DATA_DIR's
// audit.jsonl. Exit 0: chain intact (and every kept head reached); 1: the first bad record, or
// the kept head the trail no longer reaches, is named; 2: could not check.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../env';
import { type AuditHead, parseHead } from '../platform/audit/audit-head';
import { auditLogHead, verifyAuditLog } from './audit-log-verify';

const usage = [
  'usage: pnpm audit-log verify [--head <id>:<hash> …]   checks the chain (and that it still reaches each kept head)',
  '       pnpm audit-log head                             prints the head to keep',
  '(uses DATABASE_URL, or DATA_DIR when it is unset)',
].join('\n');

async function main(argv: string[]): Promise<number> {
  let command: string | undefined;
  let kept: AuditHead[];
  try {
    const { positionals, values } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { head: { type: 'string', multiple: true } },
    });
    command = positionals.length === 1 ? positionals[0] : undefined;
    const heads = values.head ?? [];
    kept = heads.flatMap((text) => parseHead(text) ?? []);
    if (kept.length !== heads.length || (command === 'head' && heads.length > 0))
      command = undefined;
  } catch {
    command = undefined;
    kept = [];
  }
  if (command !== 'verify' && command !== 'head') {
    console.error(usage);
    return 2;
  }
  let config: ReturnType<typeof loadConfig>;
  try {
    // Only where the trail is matters here: without a card service configured, read the
    // configuration as demo mode does rather than ask for everything production needs, and
    // leave out the schema owner's URL, which only `pnpm migrate` takes.
    const { DATABASE_MIGRATION_URL: _owner, ...env } = process.env;
    config = loadConfig({ DEMO_MODE: '1', ...env });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    return 2;
  }
  const where = { databaseUrl: config.databaseUrl, dataDir: config.dataDir };
  const outcome =
    command === 'head' ? await auditLogHead(where) : await verifyAuditLog(where, kept);
  for (const line of outcome.lines) console.log(line);
  return outcome.exitCode;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 2;
  },
);
