/**
 * The most characters of a chosen option a select shows whole at its narrowest (a filter's or
 * the bulk bar's 14rem at 1280): a select's text cannot wrap, and a title is no help on a touch
 * screen, so a longer choice is written out below its select.
 */
export const SELECT_SHOWS_WHOLE = 24;

/** The chosen option's text when its select would cut it, to write out whole; else undefined. */
export const wholeChoice = (text: string | undefined): string | undefined =>
  text !== undefined && text.length > SELECT_SHOWS_WHOLE ? text : undefined;
