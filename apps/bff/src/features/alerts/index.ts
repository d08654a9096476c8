// What other features may use of the alerts feature: its store, which the composition root
// (src/stores.ts) makes over the database platform/sql opens.
export { AlertStore, dropAlertsOf } from './alert-store';
