/**
 * How both services put their HTTP server on the network: a keep-alive timeout longer than clients'
 * idle timeouts (so a client never reuses a socket the server is closing), HTTP parser errors
 * answered in JSON (http-parser-errors.ts), and a failure to listen reported as a start-up problem
 * naming the variables to fix (startup-errors.ts).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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
