// Who a provider identity is in Card Console: a linked users-file person, or the verified
// email's own person — never a users-file person by email alone.
import { describe, expect, it } from 'vitest';
import type { User } from '../../platform/users/user-directory';
import { whoSignedIn } from './sso-endpoints';

const issuer = 'https://idp.example.test';
const user = (over: Partial<User>): User => ({
  email: 'ada@example.test',
  role: 'admin',
  passwordHash: 'not-used-here',
  ...over,
});

function directory(users: User[]) {
  return {
    find: (email: string) => users.find((u) => u.email === email),
    findLinked: (iss: string, subject: string) =>
      users.find((u) => u.sso?.issuer === iss && u.sso.subject === subject),
  };
}

const identity = (over: Partial<Parameters<typeof whoSignedIn>[0]> = {}) => ({
  issuer,
  sub: 'sub-1',
  email: 'someone@example.test' as string | undefined,
  role: 'finance' as 'finance' | 'admin' | undefined,
  ...over,
});

describe('whoSignedIn', () => {
  it('a linked subject is the users-file person, with the file’s email and role', async () => {
    const linked = user({ sso: { issuer, subject: 'sub-1' } });
    expect(
      await whoSignedIn(identity({ email: undefined, role: undefined }), directory([linked])),
    ).toEqual({ email: 'ada@example.test', role: 'admin', linked: true });
  });

  it('a linked subject whose person is disabled is refused, named as that person', async () => {
    const linked = user({ sso: { issuer, subject: 'sub-1' }, disabled: true });
    expect(await whoSignedIn(identity(), directory([linked]))).toEqual({
      refused: 'the linked account is disabled in the users file',
      actor: 'ada@example.test',
    });
  });

  it('no usable verified email: refused, naming the subject, with no actor', async () => {
    expect(await whoSignedIn(identity({ email: undefined }), directory([]))).toEqual({
      refused:
        'the ID token has no usable verified email (email_verified must be true); subject sub-1',
    });
  });

  it('a verified email the users file holds, unlinked: refused, saying whether that person is disabled', async () => {
    const local = user({ email: 'someone@example.test' });
    const refusal = await whoSignedIn(identity(), directory([local]));
    expect(refusal).toEqual({
      refused:
        'someone@example.test is a users-file account not linked to this provider subject (sub-1); pnpm users link links it',
    });
    expect(await whoSignedIn(identity(), directory([{ ...local, disabled: true }]))).toEqual({
      refused:
        'someone@example.test is a disabled users-file account not linked to this provider subject (sub-1); pnpm users link links it',
    });
  });

  it('a person linked to another subject does not make this one theirs', async () => {
    const other = user({ email: 'someone@example.test', sso: { issuer, subject: 'sub-2' } });
    expect(await whoSignedIn(identity(), directory([other]))).toMatchObject({
      refused: expect.stringContaining('not linked'),
    });
  });

  it('no mapped role: refused as no access, named by the email', async () => {
    expect(await whoSignedIn(identity({ role: undefined }), directory([]))).toEqual({
      refused: 'no mapped role',
      actor: 'someone@example.test',
      noRole: true,
    });
  });

  it('anyone else: the verified email with the mapped role, not linked', async () => {
    expect(await whoSignedIn(identity({ role: 'admin' }), directory([user({})]))).toEqual({
      email: 'someone@example.test',
      role: 'admin',
      linked: false,
    });
  });
});
