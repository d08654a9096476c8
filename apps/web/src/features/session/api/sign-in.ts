import type { SignInBody } from '@card-console/shared/api/session';
import { api } from '../../../lib/api-client';

export function signIn(body: SignInBody) {
  return api('session.signIn', { body });
}
