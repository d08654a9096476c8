// `pnpm audit-log verify`: checks the audit trail's hash chain. Reads the BFF's own
// configuration: DATABASE_URL (PostgreSQL) when set, else DATA_DIR's audit.jsonl.
// Exit 0: chain intact; 1: the first bad record is named; 2: could not check.
import { ConfigError, loadConfig } from '../env';
import { verifyAuditLog } from './audit-log-verify';

const usage = 'usage: pnpm audit-log verify   (uses DATABASE_URL, or DATA_DIR when it is unset)';

async function main(argv: string[]): Promise<number> {
  if (argv.length !== 1 || argv[0] !== 'verify') {
    console.error(usage);
    return 2;
  }
  let config: ReturnType<typeof loadConfig>;
  try {
    // Only where the trail is matters here: without a card service configured, read the
    // configuration as demo mode does rather than ask for everything production needs.
    config = loadConfig({ DEMO_MODE: '1', ...process.env });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    return 2;
  }
  const outcome = await verifyAuditLog({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
  });
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
