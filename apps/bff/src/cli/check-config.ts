// `pnpm start` runs this first, so a bad variable or users file stops it in a second, naming
// what is wrong, before the SPA and the bundle are built. The server checks the same again.
import { ConfigError, loadConfig } from '../env';
import { readUsersFile } from '../platform/users/user-directory';

try {
  const config = loadConfig(process.env);
  if (config.usersFile) await readUsersFile(config.usersFile);
} catch (error) {
  console.error(
    error instanceof ConfigError
      ? error.message
      : `Invalid configuration:\n  ${(error as Error).message}`,
  );
  process.exit(1);
}
