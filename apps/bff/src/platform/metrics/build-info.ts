import bffPackage from '../../../package.json' with { type: 'json' };

/** The commit `pnpm build` bundled (src/cli/bundle.ts defines it); absent when run from source. */
declare const __CARD_CONSOLE_COMMIT__: string | undefined;

export interface BuildInfo {
  /** The BFF package's `version` (`unversioned` while it has none). */
  version: string;
  /** The git commit built, when the bundle was made in a git checkout. */
  commit?: string;
  /** The Node.js running it (`v20.20.0`). */
  node: string;
}

/** What is running, for `card_console_build_info`: one glance tells which replica runs what. */
export function buildInfo(): BuildInfo {
  const commit =
    typeof __CARD_CONSOLE_COMMIT__ === 'string' && /^[0-9a-f]{7,64}$/.test(__CARD_CONSOLE_COMMIT__)
      ? __CARD_CONSOLE_COMMIT__
      : undefined;
  const { version } = bffPackage as { version?: unknown };
  return {
    version: typeof version === 'string' ? version : 'unversioned',
    ...(commit ? { commit } : {}),
    node: process.version,
  };
}
