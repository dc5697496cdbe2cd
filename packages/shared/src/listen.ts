/**
 * How both services put their HTTP server on the network: a keep-alive timeout longer than clients'
 * idle timeouts (so a client never reuses a socket the server is closing), HTTP parser errors
 * answered in JSON (http-parser-errors.ts), and a failure to listen reported as a start-up problem
 * naming the variables to fix (startup-errors.ts); and how a process leaves: {@link drainServer}.
 */
import type { Server } from 'node:http';
import { Server as NetServer, type AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { answerClientErrors } from './http-parser-errors.js';
import { attempt } from './startup-errors.js';

/** Where and how to listen. */
export interface ListenOptions {
  host: string;
  /** 0: any free port. */
  port: number;
  /** The variables that set host and port, for the start-up message, e.g. `API_HOST/API_PORT`. */
  variables: string;
  /** The server's `maxHeaderSize`, for the 431 answer's text. */
  maxHeaderSize: number;
  /** Whether error answers carry HSTS (the public origin is https). */
  hsts: boolean;
  logger: Logger;
}

/** Listens; resolves with the port taken and the server's own URL. */
export async function listen(server: Server, opts: ListenOptions): Promise<{ port: number; url: string }> {
  server.keepAliveTimeout = 65_000;
  answerClientErrors(server, opts);
  await attempt(
    `${opts.variables}: cannot listen on ${opts.host}:${opts.port}`,
    () =>
      new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(opts.port, opts.host, resolve);
      }),
  );
  const { port } = server.address() as AddressInfo;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return { port, url: `http://${host}:${port}` };
}

/** How long a stopping process waits for the edge to let go of its idle connections, ms. */
export const DRAIN_MS = 5000;

/**
 * Stops a server without failing a request another instance could have served (several
 * instances behind the edge). The listener closes at once, so new connections are refused and nginx
 * sends them to another instance (a refused connection carried no request: safe to retry, even a
 * POST). The open keep-alive connections are not cut: a request nginx sends on one now is still
 * answered, with `Connection: close`, so nginx does not reuse it; idle ones are left to nginx, which
 * drops them after its upstream `keepalive_timeout` (2 s, docker/edge.conf.template). Closing an idle
 * connection ourselves would race a request nginx is writing onto it, and nginx cannot resend a POST
 * it has already sent (it would answer 502). After `maxMs` whatever is still idle is closed anyway;
 * resolves once every connection has ended.
 */
export function drainServer(server: Server, maxMs = DRAIN_MS): Promise<void> {
  server.prependListener('request', (_req, res) => res.setHeader('Connection', 'close'));
  return new Promise((resolve) => {
    const timer = setTimeout(() => server.closeIdleConnections(), maxMs);
    // net's close, not http's: http's also closes the idle connections at once (Node 19+).
    NetServer.prototype.close.call(server, () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Stops a server: draining it ({@link drainServer}, a process leaving the edge's pool), or at once
 * (tests, tools): the listener and the idle connections close now, in-flight requests finish.
 */
export function stopServer(server: Server, drain: boolean): Promise<void> {
  if (drain) return drainServer(server);
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
