/** Thrown anywhere in a route; the handler turns it into the error body. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new HttpError(400, 'invalid_request', message);
export const notFound = (message: string) => new HttpError(404, 'not_found', message);

const codes: Record<number, string> = {
  400: 'invalid_request',
  401: 'unauthenticated',
  403: 'unauthorized',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  429: 'rate_limited',
  500: 'internal_error',
  502: 'bad_gateway',
  503: 'service_unavailable',
  504: 'gateway_timeout',
};

export function codeForStatus(status: number): string {
  return codes[status] ?? (status >= 500 ? 'internal_error' : 'error');
}
