// What other features may use of the people feature: its stores, which the index opens.
export { PeopleStore } from './people-store';
export { PersonSessionTable } from './person-session-table';
