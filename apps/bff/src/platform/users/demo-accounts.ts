import type { Role } from '@card-console/shared/api/meta';

/** The demo's public accounts (DESIGN §2). Only ever loaded when no upstream is configured. */
export const demoPassword = 'demo-password';
export const demoAdminTotpSecret = 'JBSWY3DPEHPK3PXP';

export const demoAccounts: readonly { email: string; role: Role; totpSecret?: string }[] = [
  { email: 'finance@demo.test', role: 'finance' },
  { email: 'admin@demo.test', role: 'admin', totpSecret: demoAdminTotpSecret },
];

export function isDemoEmail(email: string): boolean {
  return email.toLowerCase().endsWith('@demo.test');
}

/** The demo identity provider's subject for a demo account, which the demo links it to. */
export const demoSubject = (role: Role) => `demo-${role}`;
