import { describe, expect, it } from 'vitest';
import { childTraceparent, parseTraceparent, traceFromHeaders } from './trace-context';

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const parentId = '00f067aa0ba902b7';
const valid = `00-${traceId}-${parentId}-01`;
const shape = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

describe('parseTraceparent', () => {
  it('reads the trace id and flags of a well-formed version-00 header', () => {
    expect(parseTraceparent(valid)).toEqual({ traceId, flags: '01' });
  });

  it('accepts a later version with extra fields, as the spec asks, keeping the first four', () => {
    expect(parseTraceparent(`01-${traceId}-${parentId}-00-whatever`)).toEqual({
      traceId,
      flags: '00',
    });
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['version ff', `ff-${traceId}-${parentId}-01`],
    ['version 00 with an extra field', `${valid}-extra`],
    ['upper-case hex', `00-${traceId.toUpperCase()}-${parentId}-01`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${parentId}-01`],
    ['an all-zero parent id', `00-${traceId}-${'0'.repeat(16)}-01`],
    ['a short trace id', `00-${traceId.slice(1)}-${parentId}-01`],
    ['a long parent id', `00-${traceId}-${parentId}0-01`],
    ['one flag digit', `00-${traceId}-${parentId}-1`],
    ['surrounding space', ` ${valid}`],
    ['two headers joined', `${valid}, ${valid}`],
    ['log-injection text', `${valid}\n{"level":60}`],
    ['a huge value', `01-${traceId}-${parentId}-01-${'a'.repeat(600)}`],
  ])('ignores %s', (_name, header) => {
    expect(parseTraceparent(header)).toBeUndefined();
  });
});

describe('traceFromHeaders', () => {
  it("continues the caller's trace with a span of its own, and keeps a well-formed tracestate", () => {
    const trace = traceFromHeaders(valid, 'vendor=abc,other=1');
    expect(trace.traceId).toBe(traceId);
    expect(trace.flags).toBe('01');
    expect(trace.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(trace.spanId).not.toBe(parentId);
    expect(trace.state).toBe('vendor=abc,other=1');
  });

  it('starts a new, unsampled trace when the header is malformed, and drops its tracestate', () => {
    const trace = traceFromHeaders(`00-${traceId}-${parentId}-1`, 'vendor=abc');
    expect(trace.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(trace.traceId).not.toBe(traceId);
    expect(trace.flags).toBe('00');
    expect(trace.state).toBeUndefined();
  });

  it('never makes an id a card-number scan would flag (13 decimal digits in a row)', () => {
    // About one random 32-hex-digit id in 600 holds such a run: 20,000 would show dozens.
    for (let i = 0; i < 20_000; i++) {
      const trace = traceFromHeaders(undefined, undefined);
      expect(trace.traceId).not.toMatch(/\d{13}/);
      expect(trace.spanId).not.toMatch(/\d{13}/);
      expect(childTraceparent(trace).slice(36, 52)).not.toMatch(/\d{13}/);
    }
  });

  it('gives every request without a header a trace of its own', () => {
    const ids = new Set(
      Array.from({ length: 50 }, () => traceFromHeaders(undefined, undefined).traceId),
    );
    expect(ids.size).toBe(50);
  });

  it.each([
    ['control characters', 'a=1\u0007'],
    ['a member without =', 'a=1,b'],
    ['more than 32 members', Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(',')],
    ['more than 512 characters', `a=${'x'.repeat(520)}`],
  ])('does not pass on a tracestate with %s', (_name, state) => {
    expect(traceFromHeaders(valid, state).state).toBeUndefined();
  });
});

describe('childTraceparent', () => {
  it('is a version-00 header of the same trace and flags, with a new span each call', () => {
    const trace = traceFromHeaders(valid, undefined);
    const first = shape.exec(childTraceparent(trace));
    const second = shape.exec(childTraceparent(trace));
    expect(first?.[1]).toBe(traceId);
    expect(first?.[3]).toBe('01');
    expect(first?.[2]).not.toBe(trace.spanId);
    expect(first?.[2]).not.toBe(second?.[2]);
    // What we send is what we would accept.
    expect(parseTraceparent(childTraceparent(trace))).toEqual({ traceId, flags: '01' });
  });
});
