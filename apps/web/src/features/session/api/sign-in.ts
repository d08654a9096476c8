import type { SessionResponse, SignInBody } from '@card-console/shared/api/session';
import { apiJson } from '../../../lib/api-client';

export function signIn(body: SignInBody) {
  return apiJson<SessionResponse>('/api/session', { method: 'POST', body });
}
