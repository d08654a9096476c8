import { NotReadyError, type ReadinessCheck } from '../health';
import type { RelyingParty } from './relying-party';

/**
 * `/readyz`'s view of single sign-on: ready once the provider's discovery document was read
 * (start-up keeps trying in the background); until then, why not. Never calls the provider
 * itself, so a probe never waits on it.
 */
export function identityProviderReadiness(
  rp: Pick<RelyingParty, 'discoveryState'>,
): ReadinessCheck {
  return {
    name: 'identityProvider',
    async check() {
      const state = rp.discoveryState();
      if (state.discovered) return;
      throw new NotReadyError(
        state.failure === undefined
          ? 'the identity provider is still being discovered'
          : 'the identity provider could not be discovered (the log says why; start-up keeps trying)',
      );
    },
  };
}
