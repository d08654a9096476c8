import type { BrowserContext, Page } from 'playwright-core';

/**
 * Chromium's virtual authenticator on a page (DevTools protocol WebAuthn domain): a platform
 * authenticator that keeps resident keys and verifies the user by itself, so a passkey
 * ceremony runs for real (real signatures, checked by the BFF) with no one to touch it.
 * `credentials()` lists the passkeys it holds.
 */
export async function addVirtualAuthenticator(context: BrowserContext, page: Page) {
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return {
    async credentials() {
      const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
      return credentials;
    },
  };
}
