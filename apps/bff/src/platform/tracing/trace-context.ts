import { randomFillSync } from 'node:crypto';
import { holdsCardNumber } from '../security/card-number-ids';

/**
 * The W3C Trace Context (https://www.w3.org/TR/trace-context/) a request runs in: the caller's
 * trace when its `traceparent` is well formed, a new one otherwise. This service records no
 * spans; it keeps the trace id for its log lines and passes the trace on to the card service.
 */
export interface TraceContext {
  /** 32 lowercase hex digits, never all zeros. */
  traceId: string;
  /** This service's span for the request (16 hex digits): the parent of its upstream calls. */
  spanId: string;
  /** The caller's trace flags (2 hex digits; `01` = sampled), passed on unchanged. */
  flags: string;
  /** The caller's `tracestate`, passed on unchanged when it is well formed. */
  state?: string;
}

// version-traceid-parentid-flags; a later version may append fields after another dash.
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);
/** The spec's limits: 32 list members; 512 characters is what a vendor must pass on. */
const MAX_STATE_LENGTH = 512;
const MAX_STATE_MEMBERS = 32;
const PRINTABLE = /^[\x20-\x7e]*$/;

/** The trace fields of a well-formed `traceparent`, or undefined (a bad one is ignored). */
export function parseTraceparent(
  header: string | undefined,
): Pick<TraceContext, 'traceId' | 'flags'> | undefined {
  if (header === undefined || header.length > 512) return undefined;
  const match = TRACEPARENT.exec(header);
  if (!match) return undefined;
  const [, version, traceId = '', parentId, flags = '', rest] = match;
  // `ff` is forbidden; version 00 has exactly four fields.
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (traceId === ZERO_TRACE || parentId === ZERO_SPAN) return undefined;
  // The trace id is logged with every line of the request: one whose digits read as a card
  // number (or the caller's span id, which is no better) is refused like a malformed one.
  if (holdsCardNumber(traceId) || holdsCardNumber(parentId ?? '')) return undefined;
  return { traceId, flags };
}

/**
 * A `tracestate` worth passing on: short, printable, at most 32 `key=value` members, no card
 * number.
 */
function sanitizeTracestate(header: string | undefined): string | undefined {
  if (!header || header.length > MAX_STATE_LENGTH || !PRINTABLE.test(header)) return undefined;
  // Passed on to the card service with every call: never with a card number in it.
  if (holdsCardNumber(header.replaceAll(':', '-'))) return undefined;
  const members = header.split(',');
  if (members.length > MAX_STATE_MEMBERS) return undefined;
  return members.every((m) => m.trim() === '' || m.includes('=')) ? header : undefined;
}

/** Continues the caller's trace when its headers are well formed, else starts one. */
export function traceFromHeaders(
  traceparent: string | undefined,
  tracestate: string | undefined,
): TraceContext {
  const parent = parseTraceparent(traceparent);
  const spanId = newId(8);
  if (!parent) return { traceId: newId(16), spanId, flags: '00' };
  const state = sanitizeTracestate(tracestate);
  return { ...parent, spanId, ...(state ? { state } : {}) };
}

/** The `traceparent` of one outgoing call: the same trace, a new span whose parent is ours. */
export function childTraceparent(trace: TraceContext): string {
  const span = newId(8);
  return `00-${trace.traceId}-${span}-${trace.flags}`;
}

/**
 * Random bytes as hex, taken from a pool filled 4 KiB at a time (as `randomUUID` does): a
 * `randomBytes` call per id cost several microseconds on every request and upstream call.
 */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;
function randomHex(bytes: number): string {
  if (poolOffset + bytes > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const hex = pool.toString('hex', poolOffset, poolOffset + bytes);
  poolOffset += bytes;
  return hex;
}

/** Could be read as a card number: 13 decimal digits in a row. */
const LONG_DIGIT_RUN = /\d{13}/;

/**
 * A random id of `bytes` (8 or 16) bytes in hex, never all zeros (the spec forbids it) and never with
 * 13 decimal digits in a row: about one random trace id in 600 holds a run that a scan for
 * card numbers (the tests', an operator's) would flag in every log line of its request. Such
 * ids are drawn again, so the ids kept are still uniform among the rest.
 */
function newId(bytes: number): string {
  for (;;) {
    const id = randomHex(bytes);
    if (!LONG_DIGIT_RUN.test(id)) return id; // all zeros is such a run too
  }
}
