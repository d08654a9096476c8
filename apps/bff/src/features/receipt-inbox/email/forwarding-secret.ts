import { randomBytes } from 'node:crypto';

/**
 * A person's private forwarding secret: 24 random bytes, base64url (32 characters). The address
 * is all that proves who a forwarded receipt is for (a From header can be forged), so it is
 * unguessable, and rotating it makes the old address refuse mail.
 */
export function newForwardingSecret(): string {
  return randomBytes(24).toString('base64url');
}

/** The address a person forwards receipts to: `receipts+<secret>@<domain>`. */
export function receiptAddress(secret: string, domain: string): string {
  return `receipts+${secret}@${domain}`;
}
