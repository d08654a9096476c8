// What other features may use of the cards feature besides its api/ folder.

export { sameOwnership } from './card-ownership';
export { CardFilterField } from './components/card-filter-field';
