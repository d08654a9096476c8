import { type MetaResponse, metaResponseSchema } from '@card-console/shared/api/meta';
import { defineFeature } from '../../core/endpoint';
import type { Mode } from '../../env';
import { otpauthUri } from '../../platform/security/totp';
import { demoAccounts, demoPassword } from '../../platform/users/demo-accounts';

export interface MetaDeps {
  mode: Mode;
  /** The ways to sign in the sign-in page offers. */
  signInWays: { password: boolean; ssoLabel: string | undefined };
}

/** What the sign-in page may show. Demo credentials only ever in demo mode. */
function metaOf({ mode, signInWays }: MetaDeps): MetaResponse {
  const ways = {
    passwordSignIn: signInWays.password,
    ...(signInWays.ssoLabel ? { sso: { label: signInWays.ssoLabel } } : {}),
  };
  if (mode !== 'demo') return { mode, ...ways };
  return {
    mode,
    ...ways,
    demoAccounts: demoAccounts.map((account) => ({
      email: account.email,
      role: account.role,
      password: demoPassword,
      ...(account.totpSecret
        ? {
            totpSecret: account.totpSecret,
            otpauthUri: otpauthUri(account.email, account.totpSecret),
          }
        : {}),
    })),
  };
}

export const metaFeature = defineFeature('meta', metaOf, (endpoint) => [
  endpoint({
    method: 'GET',
    path: '/meta',
    summary: 'What the sign-in page may show (the mode, the ways to sign in)',
    access: 'public',
    mutation: false,
    example: '/api/meta',
    response: metaResponseSchema,
    handler: ({ services }) => services,
  }),
]);
