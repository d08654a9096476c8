/**
 * How a screen's state is written into the address and read back, so a link says what it shows:
 * `?status=declined,settled&min=500&q=coffee`. The router's own format wrote lists, and any text
 * that looked like JSON, as JSON (`status=%5B%22declined%22%5D`, `min=%22500%22`); links saved or
 * shared in that form still open to the same filters.
 *
 * A list is its values joined by bare commas; a comma inside a value is written `%2C`, so the
 * merchant "ACME, INC" stays one merchant. Everything reads back as text, or a list of texts:
 * each screen's validator knows which fields are lists, numbers or yes/no, and puts back
 * together a text someone split by typing a bare comma into the address.
 */

/** `parseSearch` for the router: the address's `?…` as texts and lists of texts. */
export function parseSearch(searchStr: string): Record<string, unknown> {
  // No prototype: a link's `__proto__=` is just an unknown key.
  const search: Record<string, unknown> = Object.create(null);
  for (const pair of searchStr.replace(/^\?/, '').split('&')) {
    if (pair === '') continue;
    const at = pair.indexOf('=');
    const key = decode(at < 0 ? pair : pair.slice(0, at));
    const value = readValue(at < 0 ? '' : pair.slice(at + 1));
    if (value === undefined) continue;
    const before = search[key];
    // A key written twice (`status=declined&status=settled`, by hand) holds both values.
    search[key] = before === undefined ? value : [before, value].flat();
  }
  return search;
}

/** `stringifySearch` for the router: values as plain text, lists joined by commas. */
export function stringifySearch(search: Record<string, unknown>): string {
  const pairs: string[] = [];
  for (const [key, value] of Object.entries(search)) {
    const written = writeValue(value);
    if (written !== undefined) pairs.push(`${encode(key)}=${written}`);
  }
  return pairs.length > 0 ? `?${pairs.join('&')}` : '';
}

function readValue(written: string): string | string[] | undefined {
  // Only this format has bare commas (the old one wrote each as %2C): a list.
  if (written.includes(',')) return written.split(',').map(decode);
  const text = decode(written);
  const old = oldJson(text);
  // An empty list is no filter at all.
  if (Array.isArray(old) && old.length === 0) return undefined;
  return old ?? text;
}

function writeValue(value: unknown): string | undefined {
  const values = (Array.isArray(value) ? value : [value]).filter(
    (v) => v !== undefined && v !== null,
  );
  if (values.length === 0) return undefined;
  // A list of one is written as that value: every list's validator takes a value alone.
  if (values.length > 1) return values.map((v) => encode(textOf(v))).join(',');
  const text = textOf(values[0]);
  // Text an old link would have held as JSON (`"500"` typed as a search, with its quotes) is
  // written quoted, as the old format did, so it reads back exactly as typed.
  return encode(oldJson(text) === undefined ? text : JSON.stringify(text));
}

const textOf = (value: unknown) =>
  typeof value === 'object' ? JSON.stringify(value) : String(value);

const isScalar = (value: unknown) =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

/**
 * What an old link held as JSON: a quoted text (`"500"`: the text 500) or a list of values
 * (`["declined"]`); undefined for anything else, which is read as the text it is.
 */
function oldJson(text: string): string | string[] | undefined {
  if (text[0] !== '"' && text[0] !== '[') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value === 'string') return value;
  return Array.isArray(value) && value.every(isScalar) ? value.map(String) : undefined;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Percent-encoded, but `@`, `:` and `/` (emails, paths) stay readable: a query allows them; `'`
 * is encoded too, as browsers encode it, so the address reads back exactly as written. Half of
 * a pasted emoji cannot be encoded at all: it becomes the "unknown" sign, as it did before.
 */
const encode = (text: string) =>
  encodeURIComponent(text.replace(LONE_SURROGATE, '\uFFFD'))
    .replaceAll("'", '%27')
    .replace(/%(?:40|3A|2F)/g, (escaped) => decodeURIComponent(escaped));

/** Percent-decoded, `+` as a space (old links wrote spaces so); a stray `%` stays as typed. */
function decode(written: string): string {
  const spaced = written.replaceAll('+', ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced.replace(/(?:%[0-9a-f]{2})+/gi, (escaped) => {
      try {
        return decodeURIComponent(escaped);
      } catch {
        return escaped;
      }
    });
  }
}
