import type { PersonView } from '@card-console/shared/api/people';

export const roleLabels = { admin: 'Admin', finance: 'Finance' } as const;

/** How a person came to be here, in words. */
export const sourceLabels: Record<PersonView['source'], string> = {
  file: 'Set up by the operator',
  invited: 'Invitation',
  sso: 'Single sign-on',
};

export const methodLabels = {
  password: 'password',
  passkey: 'passkey',
  sso: 'single sign-on',
} as const;

export type PersonStatus = 'Active' | 'Disabled' | 'Invited';

/** Invited and not signed up yet, disabled, or active. */
export function personStatus(person: Pick<PersonView, 'pending' | 'disabled'>): PersonStatus {
  if (person.disabled) return 'Disabled';
  return person.pending ? 'Invited' : 'Active';
}

/** A base32 secret in groups of four, easier to type into an authenticator by hand. */
export function groupSecret(secret: string): string {
  return secret.match(/.{1,4}/g)?.join(' ') ?? secret;
}
