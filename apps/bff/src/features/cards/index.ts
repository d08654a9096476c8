// What other features may use of the cards feature: the card directory's shape, and the rules
// a list made from it is searched and ordered by.
export type { CardDirectory, CardLabel, UtilizationLimit } from './card-directory';
export { cardsMatching, orderCards, serviceSort } from './card-listing';
export type { CardOwnerStores } from './card-owners-service';
export { CardOwnersStore } from './card-owners-store';
