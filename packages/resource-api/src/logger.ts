/**
 * Structured JSON logs (pino). Secrets never reach a log line: request bodies and query strings are
 * not logged (the request line is logged by path only), and wherever an Authorization or Cookie
 * header, a token, a client secret or a password appears in a logged object it is censored.
 *
 * Lines go to stdout in batches (`stdoutLogDestination`, @school/shared).
 */
import { stdoutLogDestination } from '@school/shared';
import { pino, type DestinationStream, type Logger } from 'pino';

/** Paths censored in every log line (one and two levels deep, and under `headers`). */
export const REDACTED_PATHS = [
  'authorization',
  'cookie',
  'token',
  'access_token',
  'refresh_token',
  'client_secret',
  'password',
].flatMap((key) => [key, `*.${key}`, `*.*.${key}`, `headers.${key}`, `*.headers.${key}`]);

/** Creates the service's logger at `level`, writing to stdout unless `destination` is given. */
export function createLogger(level: string, name = 'resource-api', destination?: DestinationStream): Logger {
  const options = { name, level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  return pino(options, destination ?? stdoutLogDestination());
}

export type { Logger };
