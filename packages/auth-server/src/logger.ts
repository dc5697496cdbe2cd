/**
 * Structured JSON logs (pino). Secrets never reach a log line: request bodies are not logged, and the
 * paths listed in `redact` are censored wherever they appear.
 *
 * Lines go to stdout in batches (`stdoutLogDestination`, @school/shared).
 */
import { stdoutLogDestination } from '@school/shared';
import { pino, type Logger } from 'pino';

/** Creates the service's logger at `level`. */
export function createLogger(level: string, name = 'auth-server'): Logger {
  return pino(
    {
      name,
      level,
      redact: {
        paths: [
          '*.password',
          '*.client_secret',
          '*.token',
          '*.code',
          '*.refresh_token',
          '*.access_token',
          'req.headers.authorization',
          'req.headers.cookie',
        ],
        censor: '[redacted]',
      },
    },
    stdoutLogDestination(),
  );
}

export type { Logger };
