// `pnpm users list|add|remove|disable|enable|link|unlink …`: people as the running BFF keeps them,
// in the people store (PostgreSQL with DATABASE_URL; else the embedded engine in DATA_DIR, only
// while Card Console is stopped). With `--file users.json` it edits a users file instead, which
// the BFF imports (people it has not imported before) at start-up and whenever the file changes.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { roleSchema } from '@card-console/shared/api/meta';
import pino from 'pino';
import { systemClock } from '../core/clock';
import { totpKeysOf } from '../env';
import { JsonlAuditStore } from '../platform/audit/jsonl-audit-store';
import { embeddedStoreDir, lockEmbeddedStore } from '../platform/locks/data-dir-lock';
import { FileFactorStore } from '../platform/passkeys/file-factor-store';
import { SqlFactorStore } from '../platform/passkeys/sql-factor-store';
import { TotpSecretBox } from '../platform/security/totp-secret-box';
import { applyIndexMigrations } from '../platform/sql/index-migrations';
import { embeddedEngine, type SqlEngine } from '../platform/sql/sql-engine';
import { peopleStoreOn } from '../stores';
import { addUser } from './add-user';
import { linkUser, removeUser, setUserDisabled, unlinkUser } from './edit-users';
import {
  addPerson,
  linkPerson,
  listPeople,
  operatorActor,
  type PeopleCommands,
  removePerson,
  setPersonDisabled,
  unlinkPerson,
} from './people-commands';
import { readPassword } from './read-password';

const usage = [
  'usage: pnpm users list',
  '       pnpm users add --email <email> --role <finance|admin>',
  '         (asks for the password; or pipe it: printf \'%s\\n\' "$PASSWORD" | pnpm users add …)',
  '       pnpm users remove <email>',
  '       pnpm users disable <email>',
  '       pnpm users enable <email>',
  '       pnpm users link <email> --issuer <OIDC_ISSUER> --subject <sub>',
  '         (single sign-on as that provider subject signs in as this person)',
  '       pnpm users unlink <email>',
  '',
  'Where: the people store Card Console signs people in from. With DATABASE_URL, its',
  'PostgreSQL (changes apply at once on every replica). Otherwise the embedded engine in',
  'DATA_DIR, which only one process may open: stop Card Console, then add --server-stopped.',
  '',
  'With --file <users.json> (not list): edits a users file instead. Card Console imports the',
  'people of USERS_FILE it has not imported before, at start-up and when the file changes;',
  'a person already imported is changed here (without --file) or on the People screen.',
].join('\n');

const bffDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * TOTP secrets sealed as the server seals them (TOTP_ENCRYPTION_KEY; demo mode's own key), and
 * what a person removed takes with them dropped as the server drops it (src/stores.ts).
 */
const peopleOn = (engine: SqlEngine) =>
  peopleStoreOn(engine, new TotpSecretBox(totpKeysOf(process.env)));

interface OpenedPeople extends PeopleCommands {
  close(): Promise<void>;
}

/**
 * The people store the server uses, opened as the server opens it (migrations applied), and the
 * audit trail it writes, where each change is recorded with the operator as its actor.
 */
async function openPeopleStore(serverStopped: boolean): Promise<OpenedPeople> {
  const logger = pino({ level: 'silent' });
  // A record that could not be taken back after a failed change is said on stderr.
  const trailLogger = pino({ level: 'error' }, pino.destination(2));
  const actor = operatorActor();
  const url = process.env.DATABASE_URL;
  if (url) {
    const [{ openPostgresIndex }, { connectPostgresAudit }] = await Promise.all([
      import('../platform/sql/open-postgres'),
      import('../platform/audit/postgres-audit'),
    ]);
    const engine = await openPostgresIndex({ url, logger });
    const audit = await connectPostgresAudit({ url, logger }).catch(async (error: unknown) => {
      await engine.close();
      throw error;
    });
    return {
      store: peopleOn(engine),
      trail: { audit: audit.store, actor, logger: trailLogger },
      factors: new SqlFactorStore(engine),
      close: async () => {
        await engine.close();
        await audit.close();
      },
    };
  }
  if (!serverStopped) {
    throw new Error(
      'without DATABASE_URL the people are in the embedded engine in DATA_DIR, which only one process may open: stop Card Console, then run this again with --server-stopped (or edit a users file with --file)',
    );
  }
  const base = process.env.INIT_CWD || process.cwd();
  const dataDir = process.env.DATA_DIR
    ? resolve(base, process.env.DATA_DIR)
    : join(bffDir, '.data');
  const dir = embeddedStoreDir(dataDir);
  if (!existsSync(dir)) {
    throw new Error(`no people store in ${dataDir}: start Card Console once (or set DATA_DIR)`);
  }
  // The server holds this lock while it runs on DATA_DIR: never both on the engine at once.
  const release = await lockEmbeddedStore(dataDir, {
    busy: `Card Console (or another \`pnpm users\`) is using ${dataDir}: the embedded engine takes one process at a time. Stop Card Console, then run this again with --server-stopped (a process that died frees it within 30 s).`,
    onLost: (error) => trailLogger.error({ err: error }, 'the lock on DATA_DIR was lost'),
  });
  try {
    // The second factors of one replica: the server's file in DATA_DIR, which it is off now.
    const factors = await FileFactorStore.open(dataDir);
    const engine = await embeddedEngine(dir);
    await applyIndexMigrations(engine, logger);
    return {
      store: peopleOn(engine),
      trail: { audit: new JsonlAuditStore(dataDir, systemClock), actor, logger: trailLogger },
      factors,
      close: async () => {
        await engine.close();
        await release();
      },
    };
  } catch (error) {
    await release();
    throw error;
  }
}

async function storeCommand(
  command: string | undefined,
  email: string | undefined,
  values: { role?: string | undefined; issuer?: string | undefined; subject?: string | undefined },
  serverStopped: boolean,
) {
  if (command !== 'list' && !email) throw new Error(usage);
  if (command === 'add') {
    const role = roleSchema.safeParse(values.role);
    if (!role.success) throw new Error(usage);
  } else if (values.role) throw new Error(usage);
  if (command === 'link' && (!values.issuer || !values.subject)) throw new Error(usage);
  if (!['list', 'add', 'remove', 'disable', 'enable', 'link', 'unlink'].includes(command ?? '')) {
    throw new Error(usage);
  }
  // Asked before the store opens: typing a password holds no connection.
  const password = command === 'add' ? await readPassword() : undefined;
  const on = await openPeopleStore(serverStopped);
  const { store } = on;
  try {
    const who = email as string;
    switch (command) {
      case 'list':
        for (const line of await listPeople(store)) console.log(line);
        return;
      case 'add': {
        const role = roleSchema.parse(values.role);
        const result = await addPerson(on, { email: who, role, password: password as string });
        console.log(`Added ${who} (${role}); they can sign in now.`);
        if (result.otpauthUri) {
          console.log('Add this TOTP secret to an authenticator app (shown once):');
          console.log(result.otpauthUri);
        }
        return;
      }
      case 'remove':
        await removePerson(on, who);
        console.log(`Removed ${who}; their sessions end at their next request.`);
        return;
      case 'disable':
      case 'enable': {
        const disabled = command === 'disable';
        const changed = await setPersonDisabled(on, who, disabled);
        const state = disabled ? 'disabled' : 'enabled';
        console.log(
          changed
            ? `${who} is ${state}${disabled ? '; their sessions end at their next request.' : '.'}`
            : `${who} was already ${state}.`,
        );
        return;
      }
      case 'link': {
        const { issuer, subject } = values as { issuer: string; subject: string };
        const changed = await linkPerson(on, { email: who, issuer, subject });
        console.log(
          changed
            ? `${who} now signs in through single sign-on as ${subject} at ${issuer}.`
            : `${who} was already linked to ${subject} at ${issuer}.`,
        );
        return;
      }
      case 'unlink': {
        const changed = await unlinkPerson(on, who);
        console.log(
          changed
            ? `${who} is no longer linked to single sign-on; their sessions end at their next request.`
            : `${who} had no single sign-on link.`,
        );
        return;
      }
    }
  } finally {
    await on.close();
  }
}

async function main(argv: string[]) {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      email: { type: 'string' },
      role: { type: 'string' },
      file: { type: 'string' },
      issuer: { type: 'string' },
      subject: { type: 'string' },
      'server-stopped': { type: 'boolean' },
    },
  });
  const [command, named, ...extra] = positionals;
  const email = values.email ?? named;
  if (extra.length || (values.email && named)) throw new Error(usage);
  if ((values.issuer || values.subject) && command !== 'link') throw new Error(usage);
  if (!values.file) {
    return storeCommand(command, email, values, values['server-stopped'] === true);
  }
  if (!email || values['server-stopped']) throw new Error(usage);
  // pnpm runs the script in apps/bff; a relative --file means the caller's directory.
  const file = resolve(process.env.INIT_CWD || process.cwd(), values.file);

  switch (command) {
    case 'add': {
      const role = roleSchema.safeParse(values.role);
      if (!role.success) throw new Error(usage);
      const password = await readPassword();
      const result = await addUser({ file, email, role: role.data, password });
      console.log(`${result.created ? 'Added' : 'Updated'} ${email} (${role.data}) in ${file}`);
      if (result.disabled) console.log(`${email} stays disabled: \`pnpm users enable\` lifts it.`);
      if (result.otpauthUri) {
        console.log('Add this TOTP secret to an authenticator app (shown once):');
        console.log(result.otpauthUri);
      }
      return;
    }
    case 'remove':
      if (values.role) throw new Error(usage);
      await removeUser({ file, email });
      console.log(`Removed ${email} from ${file}; their sessions end at their next request.`);
      return;
    case 'disable':
    case 'enable': {
      if (values.role) throw new Error(usage);
      const disabled = command === 'disable';
      const changed = await setUserDisabled({ file, email, disabled });
      const state = disabled ? 'disabled' : 'enabled';
      console.log(
        changed
          ? `${email} is ${state} in ${file}${disabled ? '; their sessions end at their next request.' : '.'}`
          : `${email} was already ${state}; ${file} is unchanged.`,
      );
      return;
    }
    case 'link': {
      if (values.role || !values.issuer || !values.subject) throw new Error(usage);
      const { issuer, subject } = values;
      const changed = await linkUser({ file, email, issuer, subject });
      console.log(
        changed
          ? `${email} now signs in through single sign-on as ${subject} at ${issuer}.`
          : `${email} was already linked to ${subject} at ${issuer}; ${file} is unchanged.`,
      );
      return;
    }
    case 'unlink': {
      if (values.role) throw new Error(usage);
      const changed = await unlinkUser({ file, email });
      console.log(
        changed
          ? `${email} is no longer linked to single sign-on; such a session of theirs ends at its next request.`
          : `${email} had no single sign-on link; ${file} is unchanged.`,
      );
      return;
    }
    default:
      throw new Error(usage);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
