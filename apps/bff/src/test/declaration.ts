import type { Endpoint } from '../core/endpoint';

/**
 * An endpoint declaration outside the contract, for tests of the router and the authorizer on
 * their own: what a test does not set is what a plain contract endpoint has (a public GET, no
 * params, query or body, no refusal rules). `name` is the contract's `meta.get`, which neither
 * reads.
 */
export function declaration<S = unknown>(
  fields: Partial<Endpoint<S>> & Pick<Endpoint<S>, 'method' | 'path' | 'response' | 'handler'>,
): Endpoint<S> {
  return {
    name: 'meta.get',
    access: 'public',
    navigation: false,
    params: undefined,
    query: undefined,
    body: undefined,
    summary: '',
    mutation: false,
    attempted: undefined,
    refusals: undefined,
    example: '',
    jsonLimitBytes: undefined,
    textBody: undefined,
    fileBody: undefined,
    handlerChecksBody: false,
    status: undefined,
    ...fields,
  };
}
