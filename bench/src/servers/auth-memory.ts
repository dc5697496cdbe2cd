/**
 * AS2's reference: the auth server as main.js runs it (configuration, Koa app, middleware, rate limits,
 * audit log), with oidc-provider's memory adapter instead of ours; started with the auth server's env.
 */
import { createServer } from 'node:http';
import { createApp } from '@school/auth-server/dist/app.js';
import { bootstrap, buildProvider } from '@school/auth-server/dist/bootstrap.js';
import { loadConfig } from '@school/auth-server/dist/config.js';
import { createLogger } from '@school/auth-server/dist/logger.js';
import { createIntrospectionCount } from '@school/auth-server/dist/storage/introspection-count.js';
import { loadOrCreateKeys } from '@school/auth-server/dist/provider/keys.js';

const config = loadConfig();
const logger = createLogger(config.LOG_LEVEL);
// The connections and accounts of the real bootstrap; its Redis-backed provider is left unused.
const runtime = await bootstrap(config, logger);
const keys = await loadOrCreateKeys(config.KEYS_FILE);
// The same provider as the real one (configuration, middleware, audited events), on the memory adapter.
const { accounts, redis, audit } = runtime;
const provider = buildProvider({ config, adapter: 'memory', accounts, keys }, audit, logger);
const readiness = () => Promise.resolve({ redis: 'ok', mongodb: 'ok' });
// Introspections counted by the same script as the real server's, minus its token read: the two
// servers then differ in where tokens are stored, and nothing else.
const prefix = config.REDIS_KEY_PREFIX;
const countIntrospection = createIntrospectionCount(redis, { prefix, countOnly: true });
// Everything else as the real server has it: its storage, passkeys and metadata-document resolver.
const app = createApp({ ...runtime, config, provider, logger, readiness, countIntrospection });
const handle = app.callback();
const server = createServer((req, res) => void handle(req, res));
server.keepAliveTimeout = 65_000;
server.listen(config.port, config.AUTH_HOST, () => {
  logger.info({ port: config.port }, 'auth server (memory adapter) listening');
});
process.on('SIGTERM', () => {
  server.close();
  server.closeIdleConnections();
  void runtime.close().then(() => process.exit(0));
});
