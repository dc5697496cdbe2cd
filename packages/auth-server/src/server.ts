/**
 * Wires the auth server together and starts it: Redis (oidc-provider storage), MongoDB (accounts),
 * the signing keys, the provider and the HTTP listener. `main.ts` calls it for the real process; the
 * integration tests call it to boot the same server in-process on a random port.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import mongoose from 'mongoose';
import type { Provider } from 'oidc-provider';
import { AccountStore } from './accounts/account-store.js';
import { createApp } from './app.js';
import type { AuthConfig } from './config.js';
import type { Logger } from './logger.js';
import { createProvider } from './provider/create-provider.js';
import { loadOrCreateKeys } from './provider/keys.js';
import { createRedisAdapter } from './provider/redis-adapter.js';

/** A started auth server. */
export interface RunningAuthServer {
  /** Where it listens, e.g. `http://127.0.0.1:8080`. */
  url: string;
  port: number;
  provider: Provider;
  accounts: AccountStore;
  redis: Redis;
  server: Server;
  /** Stops accepting connections, finishes in-flight requests, closes Redis and MongoDB. */
  close(): Promise<void>;
}

/** Connects to Redis and MongoDB, builds the app and listens on `config.AUTH_HOST:config.port`. */
export async function startAuthServer(config: AuthConfig, logger: Logger): Promise<RunningAuthServer> {
  const redis = new Redis(config.REDIS_URL, { enableAutoPipelining: true, lazyConnect: true });
  redis.on('error', (err) => logger.warn({ err: err.message }, 'redis connection error'));
  await redis.connect();
  const mongo = await mongoose.createConnection(config.MONGODB_URI, { serverSelectionTimeoutMS: 5000 }).asPromise();
  try {
    const accounts = new AccountStore(mongo);
    await accounts.init();
    const keys = await loadOrCreateKeys(config.KEYS_FILE);
    const adapter = createRedisAdapter(redis, { prefix: config.REDIS_KEY_PREFIX });
    const provider = createProvider({ config, adapter, accounts, keys }, logger);
    const app = createApp({ config, provider, accounts, logger });

    const server = createServer(app.callback());
    server.keepAliveTimeout = 65_000; // longer than clients' idle timeouts, to avoid reset races
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.AUTH_HOST, resolve);
    });
    const { port } = server.address() as AddressInfo;
    const host = config.AUTH_HOST.includes(':') ? `[${config.AUTH_HOST}]` : config.AUTH_HOST;
    return {
      url: `http://${host}:${port}`,
      port,
      provider,
      accounts,
      redis,
      server,
      async close() {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        });
        await Promise.allSettled([redis.quit(), mongo.close()]);
      },
    };
  } catch (err) {
    await Promise.allSettled([redis.quit(), mongo.close()]);
    throw err;
  }
}
