/**
 * The resource API process: read the configuration once (stopping with every problem listed), start,
 * and shut down gracefully on SIGTERM/SIGINT.
 */
import { exitOnStartFailure, loadOrExit, stopOnSignals } from '@school/shared';
import { loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { startResourceApi } from './server.js';

async function main(): Promise<void> {
  const config = loadOrExit('resource-api', () => loadConfig());
  const logger = createLogger(config.LOG_LEVEL);
  const running = await startResourceApi(config, logger);
  logger.info(
    { url: running.url, resource: config.BASE_URL, auth: config.AUTH_INTERNAL_URL },
    'resource API listening',
  );
  logger.flush(); // log lines are written in batches; this one should show at once
  stopOnSignals(() => running.close(true), logger);
}

exitOnStartFailure('resource-api', main());
