// Text as both SQL engines can store it, for every store that keeps the card service's strings.

/**
 * Text as both engines can store it: PostgreSQL text holds no NUL and JSON no lone surrogate,
 * so each becomes U+FFFD (the service's string is otherwise kept as it came).
 */
export function storable(text: string): string {
  // UTF-8 has no form for a lone surrogate: the round trip writes U+FFFD in its place.
  const wellFormed = /[\uD800-\uDFFF]/.test(text)
    ? Buffer.from(text, 'utf8').toString('utf8')
    : text;
  return wellFormed.replaceAll('\u0000', '\uFFFD');
}
