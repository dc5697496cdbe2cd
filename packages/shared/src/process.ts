/**
 * The process lifecycle both services share: read the configuration once, stopping with every
 * problem listed, and shut down gracefully on SIGTERM/SIGINT (stop accepting, let in-flight requests
 * finish, close connections), forced after a grace period.
 */

/** The little a lifecycle needs of a logger (pino fits). */
export interface LifecycleLogger {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Runs `load`; on an error carrying `problems`, prints them under `name` and exits 1. */
export function loadOrExit<T>(name: string, load: () => T): T {
  try {
    return load();
  } catch (err) {
    if (err instanceof Error && Array.isArray((err as { problems?: unknown }).problems)) {
      console.error(`${name}: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
}

/** On the first SIGTERM or SIGINT, runs `close` and exits 0 (1 if it fails or outlasts `graceMs`). */
export function stopOnSignals(close: () => Promise<void>, logger: LifecycleLogger, graceMs = 10_000): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    setTimeout(() => process.exit(1), graceMs).unref();
    close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/**
 * Exits 1 when `main` fails to start: every problem on its own line when the error lists them
 * (startup-errors.ts), else the error's one-line message; never a stack trace.
 */
export function exitOnStartFailure(name: string, main: Promise<void>): void {
  main.catch((err: unknown) => {
    const problems = (err as { problems?: unknown } | undefined)?.problems;
    if (Array.isArray(problems)) {
      console.error(`${name}: failed to start:\n${problems.map((p) => `  - ${String(p)}`).join('\n')}`);
    } else {
      console.error(`${name}: failed to start:`, err instanceof Error ? err.message : err);
    }
    process.exit(1);
  });
}
