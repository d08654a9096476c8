// What the sign-in page is told it may offer: without a users file (single sign-on only), the
// password form appears once someone has a password (took up an invitation), asked at each read.
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../core/clock';
import { metaFeature } from './meta-endpoints';

const handler = metaFeature.endpoints[0]?.handler as unknown as (input: {
  services: ReturnType<typeof metaFeature.services>;
}) => Promise<unknown>;

describe('GET /api/meta', () => {
  it('asks whether anyone has a password at each read when told to', async () => {
    let anyone = false;
    const services = metaFeature.services({
      mode: 'production',
      signInWays: { password: async () => anyone, ssoLabel: 'Okta' },
      clock: systemClock,
    });
    expect(await handler({ services })).toEqual({
      mode: 'production',
      passwordSignIn: false,
      sso: { label: 'Okta' },
    });
    anyone = true;
    expect(await handler({ services })).toEqual({
      mode: 'production',
      passwordSignIn: true,
      sso: { label: 'Okta' },
    });
  });

  it('a fixed answer stays fixed, and only demo mode lists the demo accounts', async () => {
    const production = metaFeature.services({
      mode: 'production',
      signInWays: { password: true, ssoLabel: undefined },
      clock: systemClock,
    });
    expect(await handler({ services: production })).toEqual({
      mode: 'production',
      passwordSignIn: true,
    });
    const demo = metaFeature.services({
      mode: 'demo',
      signInWays: { password: true, ssoLabel: undefined },
      clock: systemClock,
    });
    expect(await handler({ services: demo })).toMatchObject({
      mode: 'demo',
      demoAccounts: expect.arrayContaining([expect.objectContaining({ role: 'admin' })]),
    });
  });
});
