import type { DemoAdminCodeResponse, MetaResponse } from '@card-console/shared/api/meta';
import { AppError } from '../../core/app-error';
import type { Clock } from '../../core/clock';
import { defineFeature } from '../../core/endpoint';
import type { Mode } from '../../env';
import { currentTotp, otpauthUri } from '../../platform/security/totp';
import {
  demoAccounts,
  demoAdminTotpSecret,
  demoPassword,
} from '../../platform/users/demo-accounts';

export interface MetaDeps {
  mode: Mode;
  /**
   * The ways to sign in the sign-in page offers. `password` may be asked at each request: on an
   * install without a users file, whether anyone has a password yet (someone who took up an
   * invitation).
   */
  signInWays: {
    password: boolean | (() => Promise<boolean>);
    ssoLabel: string | undefined;
  };
  /** Whose time the demo admin's code is of. */
  clock: Clock;
}

/** What the sign-in page may show. Demo credentials only ever in demo mode. */
function metaOf(deps: MetaDeps): {
  read(): Promise<MetaResponse>;
  demoAdminCode(): DemoAdminCodeResponse;
} {
  return {
    async read() {
      const { password } = deps.signInWays;
      return describe(deps, typeof password === 'boolean' ? password : await password());
    },
    // Outside demo mode the path is answered as one no endpoint has. Not rate limited, as
    // GET /api/meta is not: one HMAC of a public secret, nothing stored, nothing audited.
    demoAdminCode() {
      if (deps.mode !== 'demo')
        throw new AppError(404, 'not_found', 'There is no such API endpoint.');
      return currentTotp(demoAdminTotpSecret, deps.clock.now());
    },
  };
}

function describe({ mode, signInWays }: MetaDeps, passwordSignIn: boolean): MetaResponse {
  const ways = {
    passwordSignIn,
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
  endpoint('meta.get', {
    summary: 'What the sign-in page may show (the mode, the ways to sign in)',
    example: '/api/meta',
    handler: ({ services }) => services.read(),
  }),
  endpoint('meta.demoAdminCode', {
    summary: "Demo mode only: the demo admin's current second-factor code (never its secret)",
    example: '/api/meta/demo-admin-code',
    handler: ({ services }) => services.demoAdminCode(),
  }),
]);
