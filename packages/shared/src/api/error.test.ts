import { describe, expect, it } from 'vitest';
import {
  type ApiErrorBody,
  apiErrorBodySchema,
  type ProblemCode,
  problemCodes,
  problemExtensionSchemas,
  problemTitles,
  problemType,
} from './error';

const problem = (code: ProblemCode, status = 400) => ({
  type: problemType(code),
  title: problemTitles[code],
  status,
  code,
  detail: 'Something about this request.',
  requestId: 'req-1',
});
const current = { name: 'Travel', minimumCents: null, maximumCents: 50_000 };
const secondFactor = { methods: ['totp', 'passkey'] };

const refused = (body: unknown) => {
  const result = apiErrorBodySchema.safeParse(body);
  return result.success ? undefined : result.error.issues;
};

describe('apiErrorBodySchema: RFC 9457 problem details, a union on `code`', () => {
  it('takes every code with the common members alone, except the codes that carry their own', () => {
    for (const code of problemCodes) {
      const plain = problem(code);
      if (Object.hasOwn(problemExtensionSchemas, code)) expect(refused(plain), code).toBeDefined();
      else expect(apiErrorBodySchema.parse(plain), code).toEqual(plain);
    }
  });

  it('takes `retryAfterSeconds` and `instance` on any code', () => {
    const busy = { ...problem('rate_limited', 429), retryAfterSeconds: 3, instance: 'urn:x:1' };
    expect(apiErrorBodySchema.parse(busy)).toEqual(busy);
  });

  it('refuses `card_changed` without `current`, and takes it with', () => {
    expect(refused(problem('card_changed', 409))).toBeDefined();
    const body = { ...problem('card_changed', 409), current };
    const parsed = apiErrorBodySchema.parse(body);
    expect(parsed).toEqual(body);
    // The type narrows on `code`: `current` is there without a check.
    if (parsed.code === 'card_changed') expect(parsed.current.name).toBe('Travel');
  });

  it('refuses `current` on every other code', () => {
    for (const code of problemCodes.filter((c) => c !== 'card_changed')) {
      const body = { ...problem(code), current, ...(code === 'not_ready' ? { checks: {} } : {}) };
      const withOwn = code.endsWith('second_factor_required') || code === 'step_up_required';
      expect(refused(withOwn ? { ...body, secondFactor } : body), code).toBeDefined();
    }
  });

  it('refuses a `current` that is not the card values', () => {
    const body = { ...problem('card_changed', 409), current: { ...current, maximumCents: '5' } };
    expect(refused(body)).toBeDefined();
    expect(
      refused({ ...body, current: { ...current, secretField: 'not declared' } }),
    ).toBeDefined();
  });

  it('gives `secondFactor` to step_up_required and second_factor_required only, and always', () => {
    for (const code of ['step_up_required', 'second_factor_required'] as const) {
      expect(refused(problem(code, 401)), code).toBeDefined();
      expect(apiErrorBodySchema.parse({ ...problem(code, 401), secondFactor })).toMatchObject({
        secondFactor,
      });
    }
    const withOptions = {
      ...problem('second_factor_required', 401),
      secondFactor: { methods: ['passkey'], passkeyOptions: { challenge: 'c', timeout: 1 } },
    };
    expect(apiErrorBodySchema.parse(withOptions)).toEqual(withOptions);
    expect(refused({ ...problem('unauthenticated', 401), secondFactor })).toBeDefined();
    expect(
      refused({ ...problem('step_up_required', 401), secondFactor: { methods: ['sms'] } }),
    ).toBeDefined();
  });

  it('gives `checks` to not_ready only', () => {
    const checks = { redis: 'ok', upstream: 'the card service is not reachable' };
    expect(apiErrorBodySchema.parse({ ...problem('not_ready', 503), checks })).toMatchObject({
      checks,
    });
    expect(refused(problem('not_ready', 503))).toBeDefined();
    expect(refused({ ...problem('shutting_down', 503), checks })).toBeDefined();
  });

  it('refuses an unknown code, an unknown member, a missing member and a type of another code', () => {
    expect(refused({ ...problem('not_found'), code: 'no_such_code' })).toBeDefined();
    expect(refused({ ...problem('not_found', 404), hint: 'x' })).toBeDefined();
    // The old body's `message` is gone: `detail` replaced it.
    expect(refused({ ...problem('not_found', 404), message: 'Not found.' })).toBeDefined();
    for (const member of ['type', 'title', 'status', 'detail', 'requestId'] as const) {
      const { [member]: _, ...rest } = problem('not_found', 404);
      expect(refused(rest), member).toBeDefined();
    }
    expect(refused({ ...problem('not_found', 404), type: problemType('forbidden') })).toMatchObject(
      [{ path: ['type'] }],
    );
    expect(refused({ ...problem('not_found'), status: 200 })).toBeDefined();
  });

  it('names each problem type `/problems/<code>` with a title of its own', () => {
    expect(problemType('card_changed')).toBe('/problems/card_changed');
    for (const code of problemCodes) expect(problemTitles[code], code).toMatch(/^[A-Z]/);
  });

  it('types the union so `current` exists on card_changed only (compile-time)', () => {
    const check = (body: ApiErrorBody) => {
      if (body.code === 'card_changed') return body.current.maximumCents;
      // @ts-expect-error: no other problem has `current`
      return body.current;
    };
    expect(check({ ...problem('card_changed', 409), code: 'card_changed', current })).toBe(50_000);
  });
});
