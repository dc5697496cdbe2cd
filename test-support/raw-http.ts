/**
 * HTTP/1.1 over a bare TCP socket, for requests no well-behaved client library will send: invalid
 * bytes in the request line, oversized or malformed headers, a body that stalls. Nothing is
 * normalised on the way out, and the whole answer is read as the server wrote it. Also
 * {@link readAnswer}, which reads a node:http response whole, for tests that send with node:http.
 */
import type { IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';

/** A node:http answer: its status, headers and body as text. */
export interface TextAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Reads the node:http response `res` to its end. */
export function readAnswer(res: IncomingMessage): Promise<TextAnswer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () =>
      resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString() }),
    );
    res.on('error', reject);
  });
}

/** One answer as read from the socket. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from connecting to the server closing the connection (or the answer being complete). */
  elapsedMs: number;
  /** Everything the server sent (several answers on a kept-alive connection). */
  raw: string;
}

/** Parses a raw HTTP/1.1 response (status line, headers, body; chunked bodies are not needed here). */
export function parseRawAnswer(raw: Buffer, elapsedMs: number): RawAnswer {
  const text = raw.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  const head = end === -1 ? text : text.slice(0, end);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const body =
    end === -1 ? '' : raw.subarray(Buffer.byteLength(text.slice(0, end + 4), 'latin1')).toString('utf8');
  return {
    status: Number(statusLine.split(' ')[1] ?? 0),
    headers,
    body,
    elapsedMs,
    raw: raw.toString('latin1'),
  };
}

/**
 * Connects to `origin` (http://host:port), writes `request` (or each part of it, `pauseMs` apart),
 * and resolves with the answer once the server closes the connection or has sent Content-Length
 * bytes (`untilClose`: only once the server closes). `keepOpen` leaves the writing side open after
 * the last part (a stalled client).
 */
export function rawRequest(
  origin: string,
  request: string | Buffer | (string | Buffer)[],
  opts: { pauseMs?: number; keepOpen?: boolean; timeoutMs?: number; untilClose?: boolean } = {},
): Promise<RawAnswer> {
  const { hostname, port } = new URL(origin);
  const parts = Array.isArray(request) ? request : [request];
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(Number(port), hostname.replace(/^\[|\]$/g, ''));
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(parseRawAnswer(Buffer.concat(chunks), Date.now() - started));
    };
    const timer = setTimeout(() => {
      settled = true;
      socket.destroy();
      reject(new Error(`no complete answer within ${opts.timeoutMs ?? 10_000} ms`));
    }, opts.timeoutMs ?? 10_000);
    socket.on('data', (d: Buffer) => {
      chunks.push(d);
      const answer = parseRawAnswer(Buffer.concat(chunks), 0);
      const length = Number(answer.headers['content-length'] ?? NaN);
      if (!opts.untilClose && Number.isFinite(length) && Buffer.byteLength(answer.body) >= length) finish();
    });
    socket.on('close', finish);
    socket.on('error', (err) => {
      if (chunks.length) finish();
      else if (!settled) {
        settled = true;
        clearTimeout(timer);
        reject(err);
      }
    });
    const sendParts = async () => {
      for (const [i, part] of parts.entries()) {
        if (i > 0 && opts.pauseMs) await new Promise((r) => setTimeout(r, opts.pauseMs));
        if (socket.destroyed) return;
        socket.write(part);
      }
      if (!opts.keepOpen) socket.end();
    };
    socket.on('connect', () => void sendParts());
  });
}
