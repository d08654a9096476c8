import type { SubAccount } from '@card-console/shared/api/sub-accounts';
import type { UpstreamSubAccount } from '@card-console/shared/upstream/sub-account';

/** Field by field, so unknown upstream fields never reach the browser. */
export function toApiSubAccount(upstream: UpstreamSubAccount): SubAccount {
  const out: SubAccount = { id: upstream.id, name: upstream.name };
  if (upstream.balance) out.balanceCents = upstream.balance.amountCents;
  if (upstream.spend) out.spendCents = upstream.spend.amountCents;
  return out;
}
