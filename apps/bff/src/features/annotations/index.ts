// What other features may use of the annotations feature: its store, which the index opens.
export { AnnotationStore } from './annotation-store';
