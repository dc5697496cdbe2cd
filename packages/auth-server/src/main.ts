/**
 * The auth server process: read the configuration once (stopping with every problem listed), start,
 * and shut down gracefully on SIGTERM/SIGINT.
 */
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { startAuthServer } from './server.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`auth-server: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger(config.LOG_LEVEL);
  const running = await startAuthServer(config, logger);
  logger.info({ url: running.url, issuer: config.BASE_URL }, 'auth server listening');

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
  console.error('auth-server: failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
