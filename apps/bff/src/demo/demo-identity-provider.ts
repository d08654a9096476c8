// Demo mode's own OpenID Provider: the demo accounts, their public password, and one more
// person whose only group grants nothing, so "signed in but no access" can be tried.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { demoAccounts, demoPassword, demoSubject } from '../platform/users/demo-accounts';
import {
  type IdentityProviderOptions,
  type ProviderPerson,
  type RunningIdentityProvider,
  startIdentityProvider,
} from './identity-provider';

export const demoClientId = 'card-console-demo';
export const demoRoleClaim = 'groups';
export const demoRoleMap: Record<string, 'finance' | 'admin'> = {
  'card-console-finance': 'finance',
  'card-console-admins': 'admin',
};

const groupOfRole = { finance: 'card-console-finance', admin: 'card-console-admins' } as const;

const demoPeople: readonly ProviderPerson[] = [
  ...demoAccounts.map((account) => ({
    sub: demoSubject(account.role),
    email: account.email,
    name: `Demo ${account.role === 'admin' ? 'Admin' : 'Finance'}`,
    groups: [groupOfRole[account.role]],
  })),
  { sub: 'demo-visitor', email: 'visitor@demo.test', name: 'Demo Visitor', groups: ['sales'] },
];

export interface DemoIdentityProviderOptions {
  /** The console's callback on each origin it answers on (demo: every loopback spelling). */
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  host?: string;
  port?: number;
  onError?: IdentityProviderOptions['onError'];
}

export interface RunningDemoIdentityProvider extends RunningIdentityProvider {
  clientId: string;
  clientSecret: string;
  roleClaim: 'groups';
  roleMap: Record<string, 'finance' | 'admin'>;
}

export async function startDemoIdentityProvider(
  options: DemoIdentityProviderOptions,
): Promise<RunningDemoIdentityProvider> {
  const clientSecret = randomBytes(32).toString('base64url');
  const running = await startIdentityProvider({
    ...(options.host === undefined ? {} : { host: options.host }),
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.onError === undefined ? {} : { onError: options.onError }),
    title: 'Card Console demo sign-in (identity provider)',
    signInNote: `These are demo people, all with the password "${demoPassword}": ${demoPeople
      .map((person) => person.email)
      .join(', ')}. The visitor may sign in but has no access to Card Console.`,
    clients: [
      {
        clientId: demoClientId,
        clientSecret,
        redirectUris: options.redirectUris,
        postLogoutRedirectUris: options.postLogoutRedirectUris,
      },
    ],
    findPerson: (email) => demoPeople.find((person) => person.email === email),
    checkPassword: (email, password) =>
      demoPeople.some((person) => person.email === email) && samePassword(password, demoPassword),
  });
  return {
    ...running,
    clientId: demoClientId,
    clientSecret,
    roleClaim: demoRoleClaim,
    roleMap: { ...demoRoleMap },
  };
}

function samePassword(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
