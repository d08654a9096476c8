// What other features may use of the annotations feature: its store, which the composition root
// (src/stores.ts) makes over the database platform/sql opens.
export { AnnotationStore } from './annotation-store';
