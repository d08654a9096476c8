import type { PasskeySummary } from '@card-console/shared/api/passkeys';
import { apiJson } from '../../../lib/api-client';

export function renamePasskey(id: string, name: string) {
  return apiJson<PasskeySummary>(`/api/passkeys/${encodeURIComponent(id)}`, {
    method: 'PATCH',
    body: { name },
  });
}
