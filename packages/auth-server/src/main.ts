/**
 * The auth server process: read the configuration once (stopping with every problem listed), start,
 * and shut down gracefully on SIGTERM/SIGINT.
 */
import { exitOnStartFailure, loadOrExit, redisEvictionProblem, stopOnSignals } from '@school/shared';
import { loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { missingNodeFlags } from './node-flags.js';
import { logProviderNotices } from './provider/provider-notices.js';
import { startAuthServer } from './server.js';

async function main(): Promise<void> {
  const config = loadOrExit('auth-server', () => loadConfig());
  const logger = createLogger(config.LOG_LEVEL);
  logProviderNotices(logger);
  const running = await startAuthServer(config, logger);
  logger.info({ url: running.url, issuer: config.BASE_URL }, 'auth server listening');
  const missing = missingNodeFlags();
  if (missing.length) {
    logger.warn(
      { missing },
      'started without its Node.js flags: it works, but every request costs more CPU (see src/node-flags.ts)',
    );
  }
  const eviction = await redisEvictionProblem(running.redis);
  if (eviction) logger.warn(eviction);
  logger.flush(); // log lines are written in batches; this one should show at once
  stopOnSignals(() => running.close(true), logger);
}

exitOnStartFailure('auth-server', main());
