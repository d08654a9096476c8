// What other features may use of the SSO feature: the relying party's shape and who signed in.
export type { RelyingParty } from './relying-party';
export { whoSignedIn } from './sso-endpoints';
