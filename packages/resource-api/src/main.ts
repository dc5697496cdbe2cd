/**
 * The resource API process: read the configuration once (stopping with every problem listed), start,
 * and shut down gracefully on SIGTERM/SIGINT.
 */
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { startResourceApi } from './server.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`resource-api: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger(config.LOG_LEVEL);
  const running = await startResourceApi(config, logger);
  logger.info(
    { url: running.url, resource: config.BASE_URL, auth: config.AUTH_INTERNAL_URL },
    'resource API listening',
  );

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => process.exit(1), 10_000);
    timer.unref();
    running.close().then(
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

main().catch((err: unknown) => {
  console.error('resource-api: failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
