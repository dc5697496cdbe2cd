/**
 * Structured JSON logs (pino). Tokens never reach a log line: the Authorization header and token-like
 * fields are censored wherever they appear, and request bodies are not logged.
 */
import { pino, type Logger } from 'pino';

/** Creates the service's logger at `level`. */
export function createLogger(level: string, name = 'resource-api'): Logger {
  return pino({
    name,
    level,
    redact: {
      paths: [
        '*.token',
        '*.access_token',
        '*.client_secret',
        'req.headers.authorization',
        'req.headers.cookie',
      ],
      censor: '[redacted]',
    },
  });
}

export type { Logger };
