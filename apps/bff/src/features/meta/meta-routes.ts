import type { MetaResponse } from '@card-console/shared/api/meta';
import type { Mode } from '../../env';
import type { ApiRoutes } from '../../http/api-router';
import { sendJson } from '../../http/send-json';
import { otpauthUri } from '../../platform/security/totp';
import { demoAccounts, demoPassword } from '../../platform/users/demo-accounts';

/** GET /api/meta: what the sign-in page may show. Demo credentials only ever in demo mode. */
export function metaRoutes(
  mode: Mode,
  signIn: { password: boolean; ssoLabel: string | undefined },
): ApiRoutes {
  const ways = {
    passwordSignIn: signIn.password,
    ...(signIn.ssoLabel ? { sso: { label: signIn.ssoLabel } } : {}),
  };
  const body: MetaResponse =
    mode === 'demo'
      ? {
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
        }
      : { mode, ...ways };
  return {
    'GET /api/meta': (_req, res) => {
      sendJson(res, body);
    },
  };
}
