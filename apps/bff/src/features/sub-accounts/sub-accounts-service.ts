import type { SubAccountCreated, SubAccountPage } from '@card-console/shared/api/sub-accounts';
import { AppError } from '../../http/app-error';
import type { Who } from '../../http/context';
import type { FeatureDeps } from '../../http/deps';
import { maskDigitRuns } from '../../upstream/safe-message';
import { toApiSubAccount } from './sub-account-mapper';

export function createSubAccountsService({
  upstream,
  audit,
}: Pick<FeatureDeps, 'upstream' | 'audit'>) {
  return {
    async list(who: Who, query: { cursor?: string }): Promise<SubAccountPage> {
      const page = await upstream.listSubAccounts(
        { requestId: who.requestId, trace: who.trace, role: who.actor.role },
        query,
      );
      const out: SubAccountPage = { items: page.items.map(toApiSubAccount) };
      if (page.metadata.nextCursor) out.nextCursor = page.metadata.nextCursor;
      return out;
    },

    /** Creates a sub account; the attempt is audited whatever the outcome. */
    async create(who: Who, body: { name: string }): Promise<SubAccountCreated> {
      const base = {
        actor: who.actor.email,
        role: who.actor.role,
        action: 'subAccount.create',
        requestId: who.requestId,
      } as const;
      let created: { id: string; name: string };
      try {
        created = await upstream.createSubAccount(
          { requestId: who.requestId, trace: who.trace, role: who.actor.role },
          body,
        );
      } catch (error) {
        const code = error instanceof AppError ? error.code : 'internal_error';
        await audit.append({
          ...base,
          outcome: 'failed',
          detail: `name "${maskDigitRuns(body.name)}": ${code}`,
        });
        throw error;
      }
      await audit.append({
        ...base,
        outcome: 'success',
        subAccountId: created.id,
        target: created.id,
        detail: `name "${maskDigitRuns(created.name)}"`,
      });
      return { id: created.id, name: created.name };
    },
  };
}
