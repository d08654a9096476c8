// A request Node's HTTP parser refuses before the app sees it (a head past its 16 KiB limit, a
// malformed request line) is answered as the app answers bad input: a problem (RFC 9457) naming
// what was wrong, where Node would write a bare status line. Node's documentation for the
// server's 'clientError' event shows the pattern: answer on the socket if it can still be
// written, else destroy it.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { type ApiErrorBody, problemTitles, problemType } from '@card-console/shared/api/error';

/** The status and words for what the parser refused. */
function refusalOf(code: string | undefined): { status: number; detail: string } {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return {
      status: 431,
      detail:
        'The request’s address and headers are longer than Card Console reads (16 KB). Ask for fewer values at once.',
    };
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { status: 408, detail: 'The request did not arrive in time. Send it again.' };
  }
  return { status: 400, detail: 'The request could not be read as HTTP.' };
}

/** Answers `server`'s parser refusals with a problem body, as the app's error handler would. */
export function answerClientErrors(server: http.Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const { status, detail } = refusalOf(error.code);
    const body: ApiErrorBody = {
      type: problemType('bad_request'),
      title: problemTitles.bad_request,
      status,
      detail,
      code: 'bad_request',
      requestId: randomUUID(),
    };
    const text = JSON.stringify(body);
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n` +
        'Content-Type: application/problem+json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(text)}\r\n` +
        `X-Request-Id: ${body.requestId}\r\n` +
        'Connection: close\r\n\r\n' +
        text,
    );
  });
}
