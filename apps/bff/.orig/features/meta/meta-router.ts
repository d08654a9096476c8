import type { MetaResponse } from '@card-console/shared/api/meta';
import { Router } from 'express';
import type { Mode } from '../../env';
import { otpauthUri } from '../../platform/security/totp';
import { demoAccounts, demoPassword } from '../../platform/users/demo-accounts';

/** GET /api/meta: what the sign-in page may show. Demo credentials only ever in demo mode. */
export function createMetaRouter(mode: Mode): Router {
  const body: MetaResponse =
    mode === 'demo'
      ? {
          mode,
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
      : { mode };
  const router = Router();
  router.get('/api/meta', (_req, res) => {
    res.json(body);
  });
  return router;
}
