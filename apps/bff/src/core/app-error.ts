import type {
  PlainProblemCode,
  ProblemCode,
  ProblemExtensions,
} from '@card-console/shared/api/error';

interface AppErrorOptions {
  cause?: unknown;
  /** Seconds until a retry makes sense (429, 503): the body's member and `Retry-After`. */
  retryAfterSeconds?: number;
}

/**
 * What a code needs beyond its sentence: the codes with extension members of their own must be
 * given them (`card_changed` its `current`), and no other code can take any.
 */
type OptionsFor<C extends ProblemCode> = [C] extends [PlainProblemCode]
  ? [options?: AppErrorOptions & { extensions?: never }]
  : [options: AppErrorOptions & { extensions: ProblemExtensions<C> }];

/**
 * The one error type thrown anywhere in the BFF; the error middleware turns it into an RFC 9457
 * problem (`apiErrorBodySchema`). `detail` is the sentence a person sees (the Error's message).
 */
export class AppError<C extends ProblemCode = ProblemCode> extends Error {
  readonly status: number;
  readonly code: C;
  readonly retryAfterSeconds: number | undefined;
  /** The code's own members of the problem (e.g. `current` on 409 `card_changed`); never secrets. */
  readonly extensions: ProblemExtensions<C> | undefined;

  constructor(status: number, code: C, detail: string, ...[options]: OptionsFor<C>) {
    super(detail, { cause: options?.cause });
    this.name = 'AppError';
    this.status = status;
    this.code = code;
    this.retryAfterSeconds = options?.retryAfterSeconds;
    this.extensions = options?.extensions;
  }
}

/** What an audit record's `detail` says of a refusal: the problem's code, or `internal_error`. */
export function problemCode(error: unknown): string {
  return error instanceof AppError ? error.code : 'internal_error';
}
