/**
 * Structured JSON logs (pino), the same for both services. Secrets never reach a log line: request
 * bodies and query strings are not logged (request lines carry the path only), and wherever one of
 * {@link REDACTED_KEYS} appears in a logged object, one or two levels deep or under `headers`, its
 * value is censored.
 *
 * An authorization code is not on the list: it is never in a logged object (it travels in a query
 * string or a form body), it is useless without its PKCE verifier (which is listed), and `code` is
 * also the name under which errors carry their code (`ECONNREFUSED`, `11000`), which the logs need.
 *
 * Lines go to stdout in batches (log-destination.ts).
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import { stdoutLogDestination } from './log-destination.js';

/** The names whose values are secrets wherever they appear. */
export const REDACTED_KEYS = [
  'authorization',
  'cookie',
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'client_secret',
  'code_verifier',
  'password',
] as const;

/** The pino paths censored in every log line. */
export const REDACTED_PATHS = REDACTED_KEYS.flatMap((key) => [
  key,
  `*.${key}`,
  `*.*.${key}`,
  `headers.${key}`,
  `*.headers.${key}`,
]);

/** Creates a service's logger at `level`, writing to stdout unless `destination` is given. */
export function createServiceLogger(name: string, level: string, destination?: DestinationStream): Logger {
  const options = { name, level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  return pino(options, destination ?? stdoutLogDestination());
}

export type { Logger };
