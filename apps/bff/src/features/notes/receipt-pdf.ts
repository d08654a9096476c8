import { constants, inflateSync } from 'node:zlib';
import { ReceiptRefusedError } from './receipt-refused';

// PDF: kept as sent, never rewritten, and refused when it can act or carry other files. Its bytes
// are searched for the names of such actions and entries as a reader reads a name (`/J#61vaScript`
// is /JavaScript): everywhere, and inside the compressed streams that hold objects or page
// content, inflated to be searched (as far as they inflate, as a reader would). Searching bytes
// rather than parsing objects leaves a crafted file no structure to hide behind; an encrypted file
// whose objects sit in object streams cannot be searched and is refused too. A destination to
// open at (`/OpenAction [3 0 R /Fit]`) is no action and passes. Object streams under a PNG
// predictor (Flate with `/Predictor 10`–`15`) are read as a reader reads them, with each row width
// and pixel size the file names; a file with object streams is refused when one could be read in
// a way this does not follow: another filter that keeps every byte (ASCIIHex, ASCII85, LZW,
// RunLength, Crypt), another predictor (TIFF's), or a filter, its parameters or a predictor's
// numbers given by reference, where the bytes do not say what they are. PDFs are only ever served
// as downloads, never shown, whatever this finds.
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

/**
 * Filters a reader undoes that keep every byte, which this check does not undo: under one, an
 * object stream's objects cannot be searched. (Flate it inflates; pictures' own codings hold no
 * objects a reader would take from them.)
 */
const UNREAD_FILTERS = new Set([
  'ASCIIHexDecode',
  'AHx',
  'ASCII85Decode',
  'A85',
  'LZWDecode',
  'LZW',
  'RunLengthDecode',
  'RL',
  'Crypt',
]);
/** A stream's keys whose value, given by reference, hides how a reader decodes it. */
const DECODING_KEYS = new Set(['Filter', 'DecodeParms']);
/** A predictor's numbers: which one, and the row width and pixel size it works on. */
const PREDICTOR_KEYS = new Set(['Predictor', 'Columns', 'Colors', 'BitsPerComponent']);
/** The most row widths and pixel sizes tried on a stream under a PNG predictor. */
const PREDICTIONS_MAX = 64;

/** How the file's streams may be decoded, as far as its bytes say. */
interface Decoding {
  /** A filter this check does not undo, or a decoding given by reference. */
  unread: boolean;
  /** Each number given to a predictor's key (a few of each; more is `unread`). */
  numbers: Map<string, Set<number>>;
}

export function checkPdf(input: Buffer): void {
  const seen = new Set<string>();
  const decoding: Decoding = { unread: false, numbers: new Map() };
  for (const name of namesOf(input)) {
    if (REMEMBERED.has(name.name)) seen.add(name.name);
    noteDecoding(input, name, decoding);
    if (!SHORT.has(name.name) && isActive(input, name)) refuse();
  }
  // Encrypted object streams hide their objects from the search.
  const objectStreams = seen.has('ObjStm') || seen.has('First');
  if (seen.has('Encrypt') && objectStreams) refuse();
  // Object streams a reader may decode in a way this does not follow.
  const predictions = objectStreams ? pngPredictions(decoding) : [];
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
    let whole: Buffer | undefined;
    if (holdsObjects(head)) {
      // A stream no longer than its start is inflated already.
      whole = data.length <= PEEK_BYTES ? head : inflated(data, left);
      refuseActiveIn(whole);
    }
    // Under a PNG predictor each row starts with its type (0 to 4, and 0 reads as white space
    // above): undone as a reader would with each row width and pixel size the file names, its
    // rows searched when they start like objects.
    if (predictions.length === 0 || (head[0] as number) > 4) continue;
    for (const { rowBytes, pixelBytes } of predictions) {
      // Enough of the start for a few rows, inflated from as many compressed bytes as a row has.
      const start =
        head.length > 4 * (rowBytes + 1) || data.length <= PEEK_BYTES
          ? head
          : inflated(data.subarray(0, Math.min(data.length, 4 * (rowBytes + 1))), left);
      const rows = unpredicted(start, rowBytes, pixelBytes);
      if (!rows || !holdsObjects(rows)) continue;
      whole ??= data.length <= PEEK_BYTES ? head : inflated(data, left);
      refuseActiveIn(unpredicted(whole, rowBytes, pixelBytes) ?? refuse());
    }
  }
}

function refuseActiveIn(objects: Buffer): void {
  for (const name of namesOf(objects)) if (isActive(objects, name)) refuse();
}

/**
 * Notes what `name` says of how a stream is decoded: a filter this check does not undo, a
 * filter or its parameters given by reference (`/Filter 7 0 R`), a predictor's numbers.
 */
function noteDecoding(bytes: Buffer, { name, end }: Name, decoding: Decoding): void {
  if (UNREAD_FILTERS.has(name)) decoding.unread = true;
  else if (DECODING_KEYS.has(name)) {
    if (isReference(bytes, end)) decoding.unread = true;
  } else if (PREDICTOR_KEYS.has(name)) {
    const value = integerAt(bytes, end);
    if (value === undefined || isReference(bytes, end)) {
      decoding.unread = true;
      return;
    }
    const values = decoding.numbers.get(name) ?? new Set<number>();
    decoding.numbers.set(name, values);
    values.add(value);
    if (values.size > PREDICTIONS_MAX) decoding.unread = true;
  }
}

/**
 * The row widths and pixel sizes (in bytes) a PNG predictor may be read with in this file, for
 * a file with object streams: none when no PNG predictor is named; refused when a stream may be
 * decoded in a way this check does not follow.
 */
function pngPredictions(decoding: Decoding): { rowBytes: number; pixelBytes: number }[] {
  if (decoding.unread) refuse();
  const numbers = (key: string, absent: number) => [...(decoding.numbers.get(key) ?? [absent])];
  const predictors = numbers('Predictor', 1);
  // 1 is none; 10 to 15 are PNG's (each row saying its own); anything else (TIFF's 2) is not read.
  if (predictors.some((p) => p !== 1 && (p < 10 || p > 15))) refuse();
  if (predictors.every((p) => p === 1)) return [];
  const found = new Map<string, { rowBytes: number; pixelBytes: number }>();
  for (const columns of [...numbers('Columns', 1), 1])
    for (const colors of [...numbers('Colors', 1), 1])
      for (const bits of [...numbers('BitsPerComponent', 8), 8]) {
        const rowBytes = Math.ceil((columns * colors * bits) / 8);
        const pixelBytes = Math.max(1, Math.ceil((colors * bits) / 8));
        if (rowBytes < 1) continue;
        found.set(`${rowBytes}/${pixelBytes}`, { rowBytes, pixelBytes });
        if (found.size > PREDICTIONS_MAX) refuse();
      }
  return [...found.values()];
}

/** The integer written at `at` (after white space), if one is. */
function integerAt(bytes: Buffer, at: number): number | undefined {
  let i = at;
  while (WHITE_SPACE.has(bytes[i] as number)) i++;
  const from = i;
  while ((bytes[i] as number) >= 0x30 && (bytes[i] as number) <= 0x39 && i - from < 9) i++;
  return i === from ? undefined : Number(bytes.toString('latin1', from, i));
}

/** Whether a reference (`12 0 R`) is written at `at`, after white space. */
function isReference(bytes: Buffer, at: number): boolean {
  return /^[\0\t\n\f\r ]*\d+[\0\t\n\f\r ]+\d+[\0\t\n\f\r ]+R(?![^\0\t\n\f\r ()<>[\]{}/%])/.test(
    bytes.toString('latin1', at, at + 40),
  );
}

/**
 * Rows under a PNG predictor undone (each row's first byte its type: none, sub, up, average,
 * Paeth, as PNG defines them), a last partial row left out; undefined when a row's type is none
 * of these (the bytes are not such rows).
 */
function unpredicted(data: Buffer, rowBytes: number, pixelBytes: number): Buffer | undefined {
  const stride = rowBytes + 1;
  const rows = Math.floor(data.length / stride);
  const out = Buffer.alloc(rows * rowBytes);
  for (let row = 0; row < rows; row++) {
    const type = data[row * stride] as number;
    if (type > 4) return undefined;
    const from = row * stride + 1;
    const to = row * rowBytes;
    for (let i = 0; i < rowBytes; i++) {
      const left = i >= pixelBytes ? (out[to + i - pixelBytes] as number) : 0;
      const up = row > 0 ? (out[to + i - rowBytes] as number) : 0;
      const upLeft =
        row > 0 && i >= pixelBytes ? (out[to + i - rowBytes - pixelBytes] as number) : 0;
      let base = 0;
      if (type === 1) base = left;
      else if (type === 2) base = up;
      else if (type === 3) base = (left + up) >>> 1;
      else if (type === 4) {
        const p = left + up - upLeft;
        const [a, b, c] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
        base = a <= b && a <= c ? left : b <= c ? up : upLeft;
      }
      out[to + i] = ((data[from + i] as number) + base) & 0xff;
    }
  }
  return out;
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
