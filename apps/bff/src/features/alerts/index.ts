// What other features may use of the alerts feature: its store, which the index opens.
export { AlertStore } from './alert-store';
