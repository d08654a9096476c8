import { constants, inflateSync } from 'node:zlib';
import { ReceiptRefusedError } from './receipt-refused';

// PDF: kept as sent, never rewritten, and refused when it can act or carry other files. Its bytes
// are searched for the names of such actions and entries as a reader reads a name (`/J#61vaScript`
// is /JavaScript): everywhere, and inside the compressed streams that hold objects or page
// content, inflated to be searched (as far as they inflate, as a reader would). Searching bytes
// rather than parsing objects leaves a crafted file no structure to hide behind; an encrypted file
// whose objects sit in object streams cannot be searched and is refused too. A destination to
// open at (`/OpenAction [3 0 R /Fit]`) is no action and passes. Not unpacked: object streams
// under predictors or filters other than Flate. PDFs are only ever served as downloads, never
// shown, whatever this finds.
//
// The check runs on the server's one thread, for every upload and mailed attachment, so what it
// may spend is bounded whatever the file holds: at most COMPRESSED_STREAMS_MAX compressed streams
// are looked into (each costs an inflation, however little it yields), at most INFLATED_MAX_BYTES
// are inflated all together (the start of every stream peeked at, whole streams, and the retries
// that find how far a damaged stream inflates), and at most DAMAGED_MAX inflations that meet
// damaged data are retried to find how far it inflates (each about log2 of its size retries, a
// failed one about a tenth of a millisecond, each capped so that together they stay within what
// is left; a stream damaged at its start counts twice, once peeked at and once whole). A file
// beyond any of them is refused as one whose contents cannot be checked, not kept unsearched: the
// stream past a limit could hold what the search is for. Receipts have a few hundred streams, a
// few MB inflated and no damaged stream. At the limits the check costs about what inflating
// INFLATED_MAX_BYTES once does (half a second or so), twice that at worst (a damaged stream: the
// try that finds the damage, then the retries); 29,000 tiny streams each peeked at 264 KB took
// ten seconds and were kept before the peeks and streams were counted.

/**
 * Script (JavaScript, JS; Rendition actions may carry JS), actions run on opening or on an event
 * (OpenAction, AA), programs and documents opened (Launch, GoToE, GoToR), forms that send or
 * load data (SubmitForm, ImportData, XFA), embedded files and media (EmbeddedFile(s), RichMedia).
 */
const ACTIVE = new Set([
  'JavaScript',
  'JS',
  'Rendition',
  'OpenAction',
  'AA',
  'Launch',
  'GoToE',
  'GoToR',
  'SubmitForm',
  'ImportData',
  'XFA',
  'EmbeddedFile',
  'EmbeddedFiles',
  'RichMedia',
]);
/**
 * Names short enough to turn up by chance in compressed bytes (about once in 4 MB): not looked
 * for there, only in the rest and in inflated streams. A script's action names /JavaScript or
 * /Rendition too, which are looked for everywhere.
 */
const SHORT = new Set(['JS', 'AA']);
/**
 * The most bytes inflating may yield, all together: peeks at streams' starts, whole streams, and
 * the retries over damaged ones (a zip bomb is refused, not inflated).
 */
const INFLATED_MAX_BYTES = 64 * 1024 * 1024;
/** The most compressed streams looked into (`stream` keywords before zlib data). */
const COMPRESSED_STREAMS_MAX = 2000;
/** The most inflations that meet damaged data and are retried to find how far they inflate. */
const DAMAGED_MAX = 16;
/** How much of a compressed stream's start is inflated to tell objects from a picture. */
const PEEK_BYTES = 256;

/** What is left for one check to spend on inflating. */
interface Allowance {
  bytes: number;
  damaged: number;
}

const refuse = (): never => {
  throw new ReceiptRefusedError('active');
};

/**
 * The names whose presence together refuses a file (encrypted object streams), the only ones the
 * search remembers: a 10 MB file of distinct names (`/0 /1 /2 ...`, 1.7 million) held 135 MB
 * while checked when each name was kept.
 */
const REMEMBERED = new Set(['Encrypt', 'ObjStm', 'First']);

export function checkPdf(input: Buffer): void {
  const seen = new Set<string>();
  for (const name of namesOf(input)) {
    if (REMEMBERED.has(name.name)) seen.add(name.name);
    if (!SHORT.has(name.name) && isActive(input, name)) refuse();
  }
  // Encrypted object streams hide their objects from the search.
  if (seen.has('Encrypt') && (seen.has('ObjStm') || seen.has('First'))) refuse();
  const compressed: Stream[] = [];
  for (const stream of streamsOf(input)) {
    if (!isZlib(input, stream.start)) continue;
    // Each is inflated at least in part, so their number is bounded before any is.
    if (compressed.length === COMPRESSED_STREAMS_MAX) refuse();
    compressed.push(stream);
  }
  // Short names outside compressed data: in the gaps before, between and after it.
  let from = 0;
  for (const { start, end } of compressed) {
    refuseShortNames(input.subarray(from, start));
    from = Math.max(from, end);
  }
  refuseShortNames(input.subarray(from));
  const left: Allowance = { bytes: INFLATED_MAX_BYTES, damaged: DAMAGED_MAX };
  for (const { start, end } of compressed) {
    const data = input.subarray(start, end);
    // Its start, paid for as any inflating is (256 bytes inflate to at most about 264 KB).
    const head = inflated(data.subarray(0, PEEK_BYTES), left);
    if (!holdsObjects(head)) continue;
    // A stream no longer than its start is inflated already.
    const objects = data.length <= PEEK_BYTES ? head : inflated(data, left);
    for (const name of namesOf(objects)) if (isActive(objects, name)) refuse();
  }
}

function refuseShortNames(bytes: Buffer): void {
  for (const name of namesOf(bytes)) if (SHORT.has(name.name)) refuse();
}

// A reader takes a stream cut short; so does this, to search what it would read. Node takes no
// limit below 1 byte.
const inflate = (data: Buffer, maxOutputLength: number) =>
  inflateSync(data, {
    maxOutputLength: Math.max(1, maxOutputLength),
    finishFlush: constants.Z_SYNC_FLUSH,
  });

const tooLarge = (error: unknown) => (error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE';

/** Pays `bytes` from what is left; a check that has spent it all is refused. */
function spend(left: Allowance, bytes: number): void {
  left.bytes -= bytes;
  if (left.bytes < 0) refuse();
}

/**
 * How much more than the readable start of damaged data a try that runs into the fault may
 * inflate: what the bits of the faulty byte still decode (a few copies of at most 258 bytes).
 */
const PAST_FAULT_BYTES = 4096;

/**
 * What a reader gets of compressed data: all of it, or what inflates before a fault (the
 * longest start of it that inflates, found by halving), paid for from `left`; more than is left
 * is refused. Each try over damaged data inflates at most about what its readable start does (a
 * try past the fault stops there), so the tries are paid for as that many times it, and each is
 * capped so that together they stay within what was left whatever the fault hides.
 */
function inflated(data: Buffer, left: Allowance): Buffer {
  let whole: Buffer | undefined;
  try {
    whole = inflate(data, left.bytes);
  } catch (error) {
    if (tooLarge(error)) refuse();
  }
  if (whole) {
    spend(left, whole.length);
    return whole;
  }
  left.damaged--;
  if (left.damaged < 0) refuse();
  // The try above, one per halving, and the last.
  const tries = Math.ceil(Math.log2(Math.max(data.length, 1))) + 2;
  const most = Math.floor(left.bytes / tries);
  let good = 0;
  let bad = data.length;
  while (bad - good > 1) {
    const middle = (good + bad) >>> 1;
    try {
      inflate(data.subarray(0, middle), most);
      good = middle;
    } catch (error) {
      if (tooLarge(error)) refuse();
      bad = middle;
    }
  }
  let start: Buffer | undefined;
  try {
    start = inflate(data.subarray(0, good), most);
  } catch {
    // Beyond `most` (nothing else fails: `good` bytes inflated above).
  }
  if (!start) return refuse();
  spend(left, tries * (start.length + PAST_FAULT_BYTES));
  return start;
}

/**
 * Whether a compressed stream holds objects (an object stream starts with numbers: each object's
 * number and place) or page content (which mostly starts with numbers too), judged from `head`,
 * what its first bytes inflate to, past white space and comments; a picture or a font is not
 * inflated whole. A start of nothing but white space and comments tells nothing: inflated whole.
 */
function holdsObjects(head: Buffer): boolean {
  let at = 0;
  while (at < head.length) {
    const byte = head[at] as number;
    if (byte === 0x25) {
      while (at < head.length && head[at] !== 0x0a && head[at] !== 0x0d) at++;
    } else if (WHITE_SPACE.has(byte)) at++;
    else return NUMBER_START.has(byte);
  }
  return true;
}

const NUMBER_START = new Set(Array.from('+-.0123456789', (c) => c.charCodeAt(0)));

/**
 * A zlib header (deflate, no preset dictionary, its check bits right), as Flate data starts.
 * Past the end of the file the bytes read as `undefined`, whose bits are 0: no header.
 */
function isZlib(input: Buffer, at: number): boolean {
  const cmf = input[at] as number;
  const flg = input[at + 1] as number;
  return (cmf & 0x0f) === 8 && (flg & 0x20) === 0 && (cmf * 256 + flg) % 31 === 0;
}

interface Name {
  name: string;
  /** Where the name ends: what follows it tells a destination from an action. */
  end: number;
}

/** An active name; `/OpenAction` only when what follows is not an array (a destination). */
function isActive(bytes: Buffer, { name, end }: Name): boolean {
  if (!ACTIVE.has(name)) return false;
  if (name !== 'OpenAction') return true;
  let at = end;
  while (WHITE_SPACE.has(bytes[at] as number)) at++;
  return bytes[at] !== 0x5b;
}

const WHITE_SPACE = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const DELIMITERS = new Set(Array.from('()<>[]{}/%', (c) => c.charCodeAt(0)));
const isRegular = (byte: number | undefined) =>
  byte !== undefined && !WHITE_SPACE.has(byte) && !DELIMITERS.has(byte);

/** Each name in `bytes`: after a `/`, up to white space or a delimiter, `#xx` escapes decoded. */
function* namesOf(bytes: Buffer): Generator<Name> {
  for (let start = bytes.indexOf(0x2f); start !== -1; ) {
    let end = start + 1;
    while (isRegular(bytes[end])) end++;
    const name = bytes
      .toString('latin1', start + 1, end)
      .replace(/#([0-9A-Fa-f]{2})/g, (_, hex: string) =>
        String.fromCharCode(Number.parseInt(hex, 16)),
      );
    yield { name, end };
    start = bytes.indexOf(0x2f, end);
  }
}

interface Stream {
  /** Where its data starts (after `stream` and its end of line) and ends (`endstream`). */
  start: number;
  end: number;
}

/**
 * Every place a stream's data may start (each `stream` keyword, even one a reader would take as
 * text) and the next `endstream` after it (or the end of the file), in file order.
 */
function* streamsOf(input: Buffer): Generator<Stream> {
  // The last `endstream` found, reused while it lies ahead: one pass over the file, however
  // many `stream` keywords it holds.
  let ending = -2;
  for (let from = 0; ; ) {
    const at = input.indexOf('stream', from);
    if (at === -1) return;
    from = at + 6;
    if (input.toString('latin1', at - 3, at) === 'end') continue;
    let start = from;
    if (input[start] === 0x0d) start++;
    if (input[start] === 0x0a) start++;
    if (ending !== -1 && ending < start) ending = input.indexOf('endstream', start);
    yield { start, end: ending === -1 ? input.length : ending };
  }
}
