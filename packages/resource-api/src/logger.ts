/** The resource API's logger: `@school/shared` logger.ts (JSON lines, secrets censored, batched). */
import { createServiceLogger, type Logger } from '@school/shared';
import type { DestinationStream } from 'pino';

/** Creates the service's logger at `level`, writing to stdout unless `destination` is given. */
export function createLogger(level: string, name = 'resource-api', destination?: DestinationStream): Logger {
  return createServiceLogger(name, level, destination);
}

export type { Logger };
