// What other features may use of the cards feature: the card directory's shape.
export type { CardDirectory, CardLabel, UtilizationLimit } from './card-directory';
