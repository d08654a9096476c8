// `pnpm users add --email someone@example.com --role admin --file ./users.json`
// `pnpm users remove|disable|enable someone@example.com --file ./users.json`
// `pnpm users link someone@example.com --issuer https://idp.example.com --subject SUB --file …`
// `pnpm users unlink someone@example.com --file ./users.json`
// A running BFF picks each change up by itself (it watches the file; SIGHUP also reloads it).
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { roleSchema } from '@card-console/shared/api/meta';
import { addUser } from './add-user';
import { linkUser, removeUser, setUserDisabled, unlinkUser } from './edit-users';
import { readPassword } from './read-password';

const usage = [
  'usage: pnpm users add --email <email> --role <finance|admin> --file <users.json>',
  '         (asks for the password; or pipe it: printf \'%s\\n\' "$PASSWORD" | pnpm users add …)',
  '       pnpm users remove <email> --file <users.json>',
  '       pnpm users disable <email> --file <users.json>',
  '       pnpm users enable <email> --file <users.json>',
  '       pnpm users link <email> --issuer <OIDC_ISSUER> --subject <sub> --file <users.json>',
  '         (single sign-on as that provider subject signs in as this person)',
  '       pnpm users unlink <email> --file <users.json>',
].join('\n');

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
    },
  });
  const [command, named, ...extra] = positionals;
  const email = values.email ?? named;
  if (!values.file || !email || extra.length || (values.email && named)) throw new Error(usage);
  if ((values.issuer || values.subject) && command !== 'link') throw new Error(usage);
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
