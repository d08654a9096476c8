import {
  subAccountCreateBodySchema,
  subAccountListQuerySchema,
  subAccountPageSchema,
} from '@card-console/shared/api/sub-accounts';
import type { ApiRoutes } from '../../http/api-router';
import { who } from '../../http/context';
import type { FeatureDeps } from '../../http/deps';
import { sendJson } from '../../http/send-json';
import { parseBody, parseQuery } from '../../http/validate';
import { compileSerializer } from '../../platform/schemas/compiled-serializer';
import { createSubAccountsService } from './sub-accounts-service';

export function subAccountsRoutes(deps: FeatureDeps): ApiRoutes {
  const service = createSubAccountsService(deps);
  const writePage = compileSerializer(subAccountPageSchema);

  return {
    'GET /api/sub-accounts': async (req, res) => {
      const query = parseQuery(subAccountListQuerySchema, req);
      sendJson(res, await service.list(who(req), query), 200, writePage);
    },

    'POST /api/sub-accounts': async (req, res) => {
      const body = parseBody(subAccountCreateBodySchema, req);
      sendJson(res, await service.create(who(req), body), 201);
    },
  };
}
