// What other features may use of the notes feature: its store, which the composition root
// (src/stores.ts) makes over the database platform/sql opens, and how the chart of accounts'
// feature (which keeps its categories and merchant rules in the same store) audits and answers
// the store's refusals.
export { NotesStore } from './notes-store';
export { categoriesIn, categoryText, storeProblem } from './store-problems';
