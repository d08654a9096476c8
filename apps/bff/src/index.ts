// Builds the real dependencies, listens, and shuts down cleanly on SIGTERM/SIGINT.
import http from 'node:http';
import { createApp } from './app';
import { type Config, ConfigError, loadConfig } from './env';
import { JsonlAuditStore } from './platform/audit/jsonl-audit-store';
import { systemClock } from './platform/clock';
import { createLogger, createStdoutDestination } from './platform/logger';
import { MemorySessionStore } from './platform/sessions/session-store';
import { UserDirectory } from './platform/users/user-directory';
import { watchUsersFile } from './platform/users/watch-users-file';
import { createUpstreamClient } from './upstream/client';

async function main() {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  // Loaded only in demo mode: production never holds the simulator (or its data) in memory.
  const demo =
    config.mode === 'demo'
      ? await (await import('./platform/demo-upstream')).startDemoUpstream({
          transactions: config.demoTransactions,
        })
      : undefined;
  const baseUrl = demo?.baseUrl ?? config.cardApiBaseUrl;
  const apiKey = demo?.apiKey ?? config.cardApiKey;
  if (!baseUrl || !apiKey) throw new Error('unreachable: loadConfig insists on both outside demo');
  // Made once the key is known, so no line it writes can carry the key.
  const logger = createLogger(config.logLevel, createStdoutDestination(), { secrets: [apiKey] });

  let users: UserDirectory;
  try {
    users = config.usersFile
      ? await UserDirectory.fromFile(config.usersFile)
      : await UserDirectory.demo();
  } catch (error) {
    logger.fatal((error as Error).message);
    process.exit(1);
  }
  if (config.mode === 'production' && !config.usersFile)
    throw new Error('unreachable: no users file');
  // A changed users file (or SIGHUP) takes effect without a restart.
  if (config.usersFile) watchUsersFile({ directory: users, file: config.usersFile, logger });

  const upstream = createUpstreamClient({ baseUrl, apiKey, logger });
  const app = createApp({
    config,
    upstream,
    users,
    sessionStore: new MemorySessionStore(systemClock),
    audit: new JsonlAuditStore(config.dataDir, systemClock),
    clock: systemClock,
    logger,
  });

  const server = http.createServer(
    { requestTimeout: 60_000, headersTimeout: 20_000, ...app.serverOptions },
    app,
  );
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  const port = (server.address() as { port: number }).port;
  logger.info(
    {
      mode: config.mode,
      upstream: demo ? 'in-process simulator' : baseUrl,
      listening: `http://${config.host}:${port}`,
    },
    `Card Console (${config.mode}) is up: open ${shownOrigin(config, port)}`,
  );

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // Stop accepting, let in-flight requests finish, then drop idle keep-alive sockets.
    const force = setTimeout(() => {
      logger.warn('forcing shutdown after 10 s');
      process.exit(1);
    }, 10_000);
    force.unref();
    server.close(async () => {
      await upstream.close();
      await demo?.close();
      logger.info('stopped');
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/**
 * Where a person opens Card Console: the public origin when one is configured (behind a proxy
 * only that origin can sign in; any other is refused as `bad_origin`), else the local address.
 */
function shownOrigin(config: Config, port: number): string {
  if (config.publicOrigin !== `http://localhost:${config.port}`) return config.publicOrigin;
  const host = config.host === '0.0.0.0' || config.host === '127.0.0.1' ? 'localhost' : config.host;
  return `http://${host}:${port}`;
}

main().catch((error: unknown) => {
  console.error('Card Console failed to start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
