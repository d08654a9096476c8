// What other features may use of the people feature: its stores, which the composition root
// (src/stores.ts) makes over the database platform/sql opens.
export { type LeftBehind, PeopleStore, type RemovedPerson } from './people-store';
export { PersonSessionTable } from './person-session-table';
