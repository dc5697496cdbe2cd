/**
 * Runs the client lifecycle sweep (client-sweep.ts) inside the auth server every
 * CLIENT_SWEEP_INTERVAL seconds (0: never; `school-auth clients sweep` still runs it by hand). The
 * first run comes a minute after start (or one interval, if shorter), so instances that restart more
 * often than the interval still sweep. Runs never overlap within a process; across instances the
 * sweep's own lock keeps one at a time. A failed run is logged and the next one tries again.
 */
import type { Logger } from '../logger.js';
import type { ClientStore } from '../storage/client-removal.js';
import { sweepClients, type LifecyclePolicy } from './client-sweep.js';

/** A running sweeper. */
export interface ClientSweeper {
  /** Stops the timer and waits for a run in progress. */
  stop(): Promise<void>;
}

/** Starts sweeping every `intervalSeconds` (nothing when 0). */
export function startClientSweeper(
  store: ClientStore,
  policy: LifecyclePolicy,
  intervalSeconds: number,
  logger: Logger,
): ClientSweeper {
  if (intervalSeconds <= 0) return { stop: () => Promise.resolve() };
  let running: Promise<void> = Promise.resolve();
  let busy = false;
  let timer: NodeJS.Timeout;
  const run = () => {
    if (busy) return;
    busy = true;
    running = sweepClients(store, policy)
      .then(({ skipped, removed }) => {
        if (skipped || !removed.length) return;
        const byReason: Record<string, number> = {};
        for (const r of removed) byReason[r.reason] = (byReason[r.reason] ?? 0) + 1;
        logger.info({ removed: removed.length, ...byReason }, 'client sweep removed clients');
      })
      .catch((err: unknown) => logger.warn({ err: (err as Error).message }, 'client sweep failed'))
      .finally(() => {
        busy = false;
      });
  };
  const first = setTimeout(
    () => {
      run();
      timer = setInterval(run, intervalSeconds * 1000);
      timer.unref();
    },
    Math.min(intervalSeconds, 60) * 1000,
  );
  first.unref();
  return {
    async stop() {
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
