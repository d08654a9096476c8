import type { SessionResponse, StepUpMethod } from '@card-console/shared/api/session';
import { apiHref } from '../../lib/api-client';

/** A second-factor check within the last few minutes still holds (the BFF has the last word). */
export function isSteppedUp(session: Pick<SessionResponse, 'stepUpUntil'>): boolean {
  return session.stepUpUntil !== undefined && session.stepUpUntil > Date.now();
}

/** Signs in at the company's identity provider, then lands on `returnTo` (a path). */
export function ssoStartUrl(returnTo: string): string {
  return apiHref('sso.start', { returnTo });
}

/** Re-authenticates an SSO person at the provider, then back to `returnTo`, stepped up. */
export function ssoStepUpUrl(returnTo: string): string {
  return apiHref('sso.stepUp', { returnTo });
}

/** What to ask for, in words: "use a passkey or enter the 6-digit code …". */
export function askForFactor(methods: readonly StepUpMethod[]): string {
  const ways = [
    methods.includes('passkey') ? 'use a passkey' : '',
    methods.includes('totp') ? 'enter the 6-digit code from your authenticator app' : '',
    methods.includes('provider') ? 'confirm at your company sign-in' : '',
  ].filter(Boolean);
  if (ways.length === 0) return 'Confirm it is you.';
  const last = ways.pop();
  return `Confirm it is you: ${ways.length ? `${ways.join(', ')} or ${last}` : last}.`;
}
