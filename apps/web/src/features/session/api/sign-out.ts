import { apiRequest } from '../../../lib/api-client';

export async function signOut(): Promise<void> {
  await apiRequest('/api/session', { method: 'DELETE' });
}
