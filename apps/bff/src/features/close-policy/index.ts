// What other features may use of the close policy: its store, which the composition root
// (src/stores.ts) makes over the database platform/sql opens, and the month close's counts read.
export { ClosePolicyStore, DEFAULT_CLOSE_POLICY } from './close-policy-store';
