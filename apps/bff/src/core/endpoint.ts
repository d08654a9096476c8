import type { AuditAction, AuditAttempt } from '@card-console/shared/api/audit-enums';
import type { Role } from '@card-console/shared/api/meta';
import type { Request, Response } from 'express';
import type { z } from 'zod';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** 'public': anyone; 'signedIn': any signed-in person; otherwise the roles allowed. */
export type Access = 'public' | 'signedIn' | readonly Role[];
export const everyone = ['finance', 'admin'] as const satisfies readonly Role[];
export const admins = ['admin'] as const satisfies readonly Role[];

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
  /**
   * A tighter per-person limit the endpoint counts against besides the API's own; a refusal by
   * it is a 429 with this message, recorded as `action`.
   */
  limit?: { limiter: 'revealPerUser'; message: string };
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
 * One endpoint, declared once, by the feature that owns it: the API router is built from these
 * (`http/api-router.ts`), and so are the authorization checks, the audit of refusals, the
 * request and response checks and the authorization test matrix.
 */
export interface EndpointSpec<
  S,
  P extends Shape | undefined,
  Q extends z.ZodType | undefined,
  B extends z.ZodType | undefined,
  R extends Reply,
> {
  method: HttpMethod;
  /** Express path under `/api` (`/cards/:id`). */
  path: string;
  /** One line: what it does, for the endpoint list. */
  summary: string;
  access: Access;
  /** Changes something: the Origin must be ours, and a refusal is audited. */
  mutation: boolean;
  /**
   * A full-page navigation (single sign-on): a GET a browser makes by following a link or a
   * redirect, so it cannot carry `X-CSRF`. It answers with redirects only; what protects it
   * is the state bound to the browser (features/sso).
   */
  navigation?: true;
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
  /** Path parameters by name; every `:name` in `path` has one. */
  params?: P;
  /** The query string; without it, the endpoint reads none. */
  query?: Q;
  /** The JSON body; without it, the endpoint reads none. */
  body?: B;
  /** The JSON body's limit, when larger than the usual 16 KiB (a selection of 500 rows). */
  jsonLimitBytes?: number;
  /**
   * The body is text of this media type, not JSON (an import's CSV): `body` then checks the
   * string, at most `limitBytes` long.
   */
  textBody?: { type: string; limitBytes: number };
  /**
   * The body is a file's bytes, whatever its media type (an upload: what it is is decided from
   * the bytes): at most `limitBytes`, read only while fewer than `atOnce` uploads are being
   * read in this process (beyond that a 503 before any byte is read). Counts against the
   * tighter per-person upload limit.
   */
  fileBody?: { limitBytes: number; atOnce: number };
  /**
   * The handler checks the body against `body` itself (`input.body` is then undefined), so
   * that it can audit a refusal with what was sent (a reveal's reason).
   */
  handlerChecksBody?: true;
  response: R;
  /** The success status of a JSON reply (200 by default). */
  status?: number;
  // A method, so an endpoint of any feature is an `Endpoint` to the router and the tests.
  handler(
    input: EndpointInput<S, P, Q, B>,
  ): R extends z.ZodType ? Returned<R> | Promise<Returned<R>> : void | Promise<void>;
}

/** An endpoint with its types erased, as the router and the tests read it. */
export type Endpoint<S = unknown> = EndpointSpec<
  S,
  Shape | undefined,
  z.ZodType | undefined,
  z.ZodType | undefined,
  Reply
>;

/**
 * A business capability's endpoints and the services they share, built from the dependencies
 * it declares (`D`). The declarations do not need the services: tests read them as they are.
 */
export interface Feature<D, S> {
  name: string;
  services: (deps: D) => S;
  endpoints: readonly Endpoint<S>[];
}

/** Declares one endpoint of a feature whose services are `S`. */
export type EndpointMaker<S> = <
  P extends Shape | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  R extends Reply = Reply,
>(
  spec: EndpointSpec<S, P, Q, B, R>,
) => Endpoint<S>;

/**
 * A feature: its name, how its services are built from its dependencies, and its endpoints,
 * each declared with the `endpoint` function handed to `declare` (typed by the services).
 */
export function defineFeature<D, S>(
  name: string,
  services: (deps: D) => S,
  declare: (endpoint: EndpointMaker<S>) => Endpoint<S>[],
): Feature<D, S> {
  const endpoint = ((spec) => spec as unknown as Endpoint<S>) as EndpointMaker<S>;
  return { name, services, endpoints: declare(endpoint) };
}

/** `GET /api/cards/:id`: how logs, metrics and audit records name an endpoint. */
export function routeOf(endpoint: Pick<Endpoint, 'method' | 'path'>): string {
  return `${endpoint.method} /api${endpoint.path}`;
}
