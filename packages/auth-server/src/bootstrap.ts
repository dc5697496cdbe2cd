/**
 * Opens what the auth server runs on (Redis, MongoDB, the signing keys) and builds the provider.
 * Shared by the HTTP server and the operator command, so both see the same clients and accounts.
 *
 * The three are opened together and a failure names its setting and where it points (the URL with
 * any password redacted, the file path), every failure at once (`@school/shared` startup-errors.ts):
 * "REDIS_URL: cannot connect to redis://…: connect ECONNREFUSED …", not "Connection is closed.".
 */
import { allOrProblems, attempt, redactUrl } from '@school/shared';
import { Redis } from 'ioredis';
import mongoose, { type Connection } from 'mongoose';
import type { Provider } from 'oidc-provider';
import { AccountStore } from './accounts/account-store.js';
import { AuditLog } from './audit/audit-log.js';
import { auditProviderEvents } from './audit/provider-events.js';
import type { AuthConfig } from './config.js';
import type { Logger } from './logger.js';
import type { ProviderDeps } from './provider/configuration.js';
import type { ClientStore } from './storage/client-removal.js';
import { createProvider } from './provider/create-provider.js';
import { allowConcurrentRefresh } from './provider/refresh-grace.js';
import { loadOrCreateKeys } from './provider/keys.js';
import { createIntrospectionCount, type CountWithRead } from './storage/introspection-count.js';
import { createRedisAdapter } from './storage/redis-adapter.js';
import { createUsageRecorder, usageResolutionSeconds } from './storage/client-usage.js';
import { markUsageRecordingStart } from './provider/client-sweep.js';
import { withOutageErrors } from './provider/storage-outage.js';
import { createCimdResolver } from './cimd/cimd-setup.js';

/** The auth server's open connections and its provider. */
export interface AuthRuntime {
  redis: Redis;
  mongo: Connection;
  accounts: AccountStore;
  audit: AuditLog;
  provider: Provider;
  /** The introspection route's count-and-read (storage/introspection-count.ts). */
  countIntrospection: CountWithRead;
  /** Where clients live, for removing them (storage/client-removal.ts). */
  clients: ClientStore;
  /** Closes Redis and MongoDB. */
  close(): Promise<void>;
}

/**
 * The provider with everything the server hangs on it (the audit of its events). `adapter` is our
 * Redis adapter in every real process; the benchmark's reference server passes oidc-provider's
 * `'memory'` to measure what the Redis storage costs, everything else equal.
 */
export function buildProvider(deps: ProviderDeps, audit: AuditLog, logger: Logger): Provider {
  const provider = createProvider(deps, logger);
  auditProviderEvents(provider, audit);
  return provider;
}

/** Connects to Redis and MongoDB, loads (or creates) the keys and builds the provider. */
export async function bootstrap(config: AuthConfig, logger: Logger): Promise<AuthRuntime> {
  // While Redis is unreachable, fail commands at once (503 to the caller) instead of queueing them;
  // ioredis keeps reconnecting in the background, so service resumes by itself.
  const redis = new Redis(config.REDIS_URL, {
    enableAutoPipelining: true,
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
  });
  // ioredis rejects a failed connect with "Connection is closed."; the reason is in its last error.
  let redisError: Error | undefined;
  redis.on('error', (err) => {
    redisError = err;
    logger.warn({ err: err.message }, 'redis connection error');
  });
  const mongo: Connection = mongoose.createConnection(config.MONGODB_URI, {
    serverSelectionTimeoutMS: 3000,
    bufferCommands: false,
  });
  let audit: AuditLog | undefined;
  const close = async () => {
    await audit?.close();
    await Promise.allSettled([redis.quit(), mongo.close()]);
  };
  const mongoAt = `MONGODB_URI: cannot use ${redactUrl(config.MONGODB_URI)}`;
  try {
    const [, , keys] = await allOrProblems([
      attempt(`REDIS_URL: cannot connect to ${redactUrl(config.REDIS_URL)}`, () =>
        redis.connect().catch((err: unknown) => {
          throw redisError ?? err;
        }),
      ),
      attempt(mongoAt, () => mongo.asPromise()),
      attempt('KEYS_FILE', () => loadOrCreateKeys(config.KEYS_FILE)),
    ] as const);
    const accounts = new AccountStore(mongo);
    audit = new AuditLog(mongo, logger, config.AUDIT_RETENTION_DAYS);
    await attempt(mongoAt, () => Promise.all([accounts.init(), audit!.init()]));
    const prefix = config.REDIS_KEY_PREFIX;
    const recordUse = createUsageRecorder(redis, {
      prefix,
      resolutionSeconds: usageResolutionSeconds(config.CLIENT_IDLE_TTL),
    });
    await attempt(`REDIS_URL: cannot use ${redactUrl(config.REDIS_URL)}`, () =>
      markUsageRecordingStart(redis, prefix),
    );
    const refreshGraceSeconds = config.REFRESH_REUSE_GRACE;
    const cimd = createCimdResolver(config, redis, logger);
    const resolveCimdClient = (clientId: string) => cimd.resolve(clientId);
    const adapter = withOutageErrors(
      createRedisAdapter(redis, { prefix, recordUse, refreshGraceSeconds, resolveCimdClient }),
    );
    const cimdConsents = { redis, prefix, ttlSeconds: config.GRANT_TTL };
    const provider = buildProvider({ config, adapter, accounts, keys, cimdConsents }, audit, logger);
    allowConcurrentRefresh(provider, redis, prefix, refreshGraceSeconds);
    const countIntrospection = createIntrospectionCount(redis, { prefix });
    const clients: ClientStore = { redis, prefix, provider, audit };
    return { redis, mongo, accounts, audit, provider, countIntrospection, clients, close };
  } catch (err) {
    await close();
    throw err;
  }
}
