/**
 * Structured JSON logs (pino). Secrets never reach a log line: request bodies are not logged, and the
 * paths listed in `redact` are censored wherever they appear.
 *
 * Lines go to stdout through one buffered writer: written in chunks of 4 KiB or every 200 ms,
 * whichever comes first, and flushed when the process exits (pino registers that). A write system
 * call per line (pino's default) was ~10 % of the CPU of a token request in scripts/bench. A process
 * killed with SIGKILL can lose the last 200 ms of lines.
 */
import { destination as sonicBoom, pino, type Logger } from 'pino';

const FLUSH_EVERY_MS = 200;
let stdout: ReturnType<typeof sonicBoom> | undefined;

/** The shared buffered stdout writer (created on first use). */
function destination(): ReturnType<typeof sonicBoom> {
  if (!stdout) {
    const dest = sonicBoom({ dest: 1, sync: false, minLength: 4096 });
    setInterval(() => {
      try {
        dest.flush();
      } catch {
        // closed while the process exits: pino flushes synchronously then
      }
    }, FLUSH_EVERY_MS).unref();
    stdout = dest;
  }
  return stdout;
}

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
    destination(),
  );
}

export type { Logger };
