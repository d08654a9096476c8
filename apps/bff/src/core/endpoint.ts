import type { AuditAction, AuditAttempt } from '@card-console/shared/api/audit-enums';
import {
  type Access,
  type EndpointName,
  type HttpMethod,
  type Route,
  routes,
} from '@card-console/shared/contract/routes';
import {
  type EndpointSchemas,
  type EndpointSchemasOf,
  endpointSchemas,
} from '@card-console/shared/contract/schemas';
import type { Request, Response } from 'express';
import type { z } from 'zod';

export { admins, everyone } from '@card-console/shared/contract/routes';
export type { Access, EndpointName, HttpMethod };

/**
 * What an endpoint answers: JSON that this schema checks (and strips of anything it does not
 * declare) on its way out, or something the handler writes itself: a streamed file or a
 * redirect (a navigation).
 */
export type Reply = z.ZodType | 'stream' | 'redirect';

type Shape = Record<string, z.ZodType>;
type Parsed<T> = T extends z.ZodType ? z.output<T> : undefined;
type ParsedShape<T> = T extends Shape ? { [K in keyof T]: z.output<T[K]> } : Record<never, never>;
/** What a JSON handler returns: the reply's input; `undefined` where the reply allows it is a 204. */
type Returned<R> = R extends z.ZodType ? z.input<R> : undefined;

/** A feature's rules for the refusals of one of its endpoints (`EndpointSpec.refusals`). */
export interface Refusals {
  /**
   * The audit action a refused mutation is recorded as (a card number where the id goes, the
   * `limit` below), instead of `access.denied`.
   */
  action?: AuditAction;
  /** The card a refusal's record names, read from the request (its path), if any. */
  cardId?(req: Request): string | undefined;
  /** What else a refusal's record names as its target (an alert rule), read from the request. */
  target?(req: Request): string | undefined;
  /**
   * A tighter per-person limit the endpoint counts against besides the API's own; a refusal by
   * it is a 429 with this message, recorded as `action`.
   */
  limit?: { limiter: 'revealPerUser' | 'alertTestsPerUser'; message: string };
}

/** What a handler is given: the request's parts, each already checked by its schema. */
export interface EndpointInput<S, P, Q, B> {
  req: Request;
  res: Response;
  /** The feature's services, built once per app from its dependencies. */
  services: S;
  params: ParsedShape<P>;
  query: Parsed<Q>;
  body: Parsed<B>;
}

/**
 * One endpoint as the router and the tests read it: the contract's declaration (its name,
 * method, path, access and schemas, `packages/shared/src/contract`) with what its feature adds
 * on the server (`Implementation`). The API router is built from these (`http/api-router.ts`),
 * and so are the authorization checks, the audit of refusals, the request and response checks
 * and the authorization test matrix.
 */
export interface Endpoint<S = unknown> {
  /** The contract's name for it (`cards.get`). */
  name: EndpointName;
  method: HttpMethod;
  /** Express path under `/api` (`/cards/:id`). */
  path: string;
  access: Access;
  /**
   * A full-page navigation (single sign-on, a route that `answers: 'redirect'`): a GET a
   * browser makes by following a link or a redirect, so it cannot carry `X-CSRF`. It answers
   * with redirects only and reads its query itself; what protects it is the state bound to the
   * browser (features/sso).
   */
  navigation: boolean;
  params: Shape | undefined;
  query: z.ZodType | undefined;
  /** The body's check: the implementation's stricter one, or the contract's. */
  body: z.ZodType | undefined;
  response: Reply;
  summary: string;
  /** Changes something (any method but GET): the Origin must be ours, and a refusal is audited. */
  mutation: boolean;
  attempted: AuditAttempt | undefined;
  refusals: Refusals | undefined;
  example: string;
  jsonLimitBytes: number | undefined;
  textBody: { type: string; limitBytes: number } | undefined;
  fileBody: { limitBytes: number; atOnce: number } | undefined;
  handlerChecksBody: boolean;
  status: number | undefined;
  handler(input: EndpointInput<S, Shape | undefined, unknown, unknown>): unknown;
}

type SchemasOf<N extends EndpointName> = EndpointSchemasOf<N>;
type ParamsOf<N extends EndpointName> =
  SchemasOf<N> extends { params: infer P extends Shape } ? P : undefined;
type QueryOf<N extends EndpointName> =
  SchemasOf<N> extends { query: infer Q extends z.ZodType } ? Q : undefined;
type ContractBodyOf<N extends EndpointName> =
  SchemasOf<N> extends { body: infer B extends z.ZodType } ? B : undefined;
type Answers<N extends EndpointName> = (typeof routes)[N] extends { answers: string }
  ? true
  : false;
type ResponseOf<N extends EndpointName> =
  SchemasOf<N> extends { response: infer R extends z.ZodType } ? R : undefined;

/**
 * What a feature adds to a contract endpoint on the server: what it does in a line, whether it
 * changes something, how its refusals are recorded, its body's limits, and its handler, whose
 * input and answer are typed by the contract.
 */
export interface Implementation<S, N extends EndpointName, B extends z.ZodType | undefined> {
  /** One line: what it does, for the endpoint list. */
  summary: string;
  /** What a person was trying to do, named in the audit record of a refusal (role, Origin). */
  attempted?: AuditAttempt;
  /**
   * How the feature records and limits refusals of this endpoint, where it says more than an
   * `access.denied` record naming the route (the cards feature: the card, its own actions, the
   * reveal limit).
   */
  refusals?: Refusals;
  /** A concrete path for generated tests (`{cardId}` placeholders are filled in by them). */
  example: string;
  /**
   * A stricter check of the body than the contract's, with the same input: the server's own
   * rules (no card number in a rule's name), or a file's bytes for a route that `sends: 'file'`.
   */
  body?: B;
  /** The JSON body's limit, when larger than the usual 16 KiB (a selection of 500 rows). */
  jsonLimitBytes?: number;
  /** The body of a route that `sends: 'csv'`: text of this media type, at most `limitBytes` long. */
  textBody?: { type: string; limitBytes: number };
  /**
   * The body of a route that `sends: 'file'`, whatever its media type (what it is is decided
   * from the bytes): at most `limitBytes`, read only while fewer than `atOnce` uploads are being
   * read in this process (beyond that a 503 before any byte is read). Counts against the
   * tighter per-person upload limit.
   */
  fileBody?: { limitBytes: number; atOnce: number };
  /**
   * The handler checks the body itself (`input.body` is then undefined), so that it can audit
   * a refusal with what was sent (a reveal's reason).
   */
  handlerChecksBody?: true;
  /** The success status of a JSON reply (200 by default). */
  status?: number;
  // A method, so an endpoint of any feature is an `Endpoint` to the router and the tests.
  handler(
    input: EndpointInput<S, ParamsOf<N>, QueryOf<N>, B extends z.ZodType ? B : ContractBodyOf<N>>,
  ): Answers<N> extends true
    ? void | Promise<void>
    : Returned<ResponseOf<N>> | Promise<Returned<ResponseOf<N>>>;
}

/**
 * A business capability's endpoints and the services they share, built from the dependencies
 * it declares (`D`). The declarations do not need the services: tests read them as they are.
 */
export interface Feature<D, S> {
  name: string;
  services: (deps: D) => S;
  endpoints: readonly Endpoint<S>[];
}

/** Implements one contract endpoint in a feature whose services are `S`. */
export type EndpointMaker<S> = <
  N extends EndpointName,
  B extends z.ZodType | undefined = undefined,
>(
  name: N,
  implementation: Implementation<S, N, B>,
) => Endpoint<S>;

/** How the router treats the answer: a file or a redirect the handler writes, or checked JSON. */
function replyOf(name: EndpointName, route: Route, schemas: EndpointSchemas): Reply {
  if (route.answers === 'file') return 'stream';
  if (route.answers === 'redirect') return 'redirect';
  if (!schemas.response) throw new Error(`the contract gives ${name} no response`);
  return schemas.response;
}

/** The endpoint `name` of the contract, implemented. */
function implement<S>(
  name: EndpointName,
  implementation: Implementation<S, EndpointName, z.ZodType | undefined>,
): Endpoint<S> {
  const route: Route = routes[name];
  const schemas: EndpointSchemas = endpointSchemas[name];
  return {
    name,
    method: route.method,
    path: route.path,
    access: route.access,
    navigation: route.answers === 'redirect',
    params: schemas.params,
    query: schemas.query,
    body: implementation.body ?? schemas.body,
    response: replyOf(name, route, schemas),
    summary: implementation.summary,
    mutation: route.method !== 'GET',
    attempted: implementation.attempted,
    refusals: implementation.refusals,
    example: implementation.example,
    jsonLimitBytes: implementation.jsonLimitBytes,
    textBody: implementation.textBody,
    fileBody: implementation.fileBody,
    handlerChecksBody: implementation.handlerChecksBody === true,
    status: implementation.status,
    handler: implementation.handler as Endpoint<S>['handler'],
  };
}

/**
 * A feature: its name, how its services are built from its dependencies, and its endpoints,
 * each the contract's endpoint implemented with the `endpoint` function handed to `declare`
 * (typed by the services and the contract).
 */
export function defineFeature<D, S>(
  name: string,
  services: (deps: D) => S,
  declare: (endpoint: EndpointMaker<S>) => Endpoint<S>[],
): Feature<D, S> {
  const endpoint = implement as EndpointMaker<S>;
  return { name, services, endpoints: declare(endpoint) };
}

/** `GET /api/cards/:id`: how logs, metrics and audit records name an endpoint. */
export function routeOf(endpoint: Pick<Endpoint, 'method' | 'path'>): string {
  return `${endpoint.method} /api${endpoint.path}`;
}
