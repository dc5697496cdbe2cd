/**
 * Requests Node's HTTP parser refuses before the app (Express, Koa) ever sees them — a request line and headers
 * over `maxHeaderSize`, malformed HTTP, a request not received within `REQUEST_TIMEOUT_MS` (a slow
 * or stalled client) — still get an answer in the services' shape: JSON `{error, error_description}`
 * with the security headers, then the connection is closed. Node's own answer would be a bare status
 * line, or nothing at all.
 */
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/** What Node keeps on a server socket: the response in flight on it, if any. */
interface InFlight {
  _httpMessage?: { headersSent: boolean } | null;
}

/** The status and text for a parser or timeout error. */
export function clientErrorAnswer(code: string | undefined, maxHeaderSize: number): [number, string] {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return [431, `the request line and headers exceed ${maxHeaderSize} bytes`];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_REQUEST_HEADERS_TIMEOUT':
      return [408, 'the request was not received in time'];
    default:
      return [400, 'the request is not valid HTTP/1.1'];
  }
}

/** Answers parser errors and timeouts of `server` (see above). */
export function answerClientErrors(
  server: Server,
  opts: { maxHeaderSize: number; hsts: boolean; logger: Logger },
): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex & InFlight) => {
    // Nothing can be sent once the peer is gone or an answer has started (Node's own rule: no
    // response in flight on this connection, or none of its header written yet).
    if (err.code === 'ECONNRESET' || !socket.writable || socket._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    const [status, description] = clientErrorAnswer(err.code, opts.maxHeaderSize);
    opts.logger.info({ code: err.code, status }, 'refused a malformed or stalled request');
    const body = JSON.stringify({ error: 'invalid_request', error_description: description });
    const headers = [
      `HTTP/1.1 ${status} ${REASONS[status]}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Cache-Control: no-store',
      "Content-Security-Policy: default-src 'none';frame-ancestors 'none'",
      'X-Content-Type-Options: nosniff',
      'Referrer-Policy: no-referrer',
      'X-Frame-Options: DENY',
      ...(opts.hsts ? ['Strict-Transport-Security: max-age=31536000'] : []),
      'Connection: close',
    ];
    socket.end(`${headers.join('\r\n')}\r\n\r\n${body}`);
  });
}
