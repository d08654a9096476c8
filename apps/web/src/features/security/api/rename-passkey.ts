import { api } from '../../../lib/api-client';

export function renamePasskey(id: string, name: string) {
  return api('security.renamePasskey', { params: { id }, body: { name } });
}
