// `pnpm users add --email someone@example.com --role admin --file ./users.json`
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { roleSchema } from '@card-console/shared/api/meta';
import { addUser } from './add-user';
import { readPassword } from './read-password';

const usage = 'usage: pnpm users add --email <email> --role <finance|admin> --file <users.json>';

async function main(argv: string[]) {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { email: { type: 'string' }, role: { type: 'string' }, file: { type: 'string' } },
  });
  const role = roleSchema.safeParse(values.role);
  if (positionals[0] !== 'add' || !values.email || !values.file || !role.success) {
    throw new Error(usage);
  }
  // pnpm runs the script in apps/bff; a relative --file means the caller's directory.
  const file = resolve(process.env.INIT_CWD || process.cwd(), values.file);
  const password = await readPassword();
  const result = await addUser({ file, email: values.email, role: role.data, password });
  console.log(`${result.created ? 'Added' : 'Updated'} ${values.email} (${role.data}) in ${file}`);
  if (result.otpauthUri) {
    console.log('Add this TOTP secret to an authenticator app (shown once):');
    console.log(result.otpauthUri);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
