/**
 * Opens what the auth server runs on (Redis, MongoDB, the signing keys) and builds the provider.
 * Shared by the HTTP server and the operator command, so both see the same clients and accounts.
 *
 * The three are opened together and a failure names its setting and where it points (the URL with
 * any password redacted, the file path), every failure at once (`@school/shared` startup-errors.ts):
 * "REDIS_URL: cannot connect to redis://…: connect ECONNREFUSED …", not "Connection is closed.".
 */
import {
  allOrProblems,
  attempt,
  closeRedis,
  createRedisClient,
  redisProblem,
  redactUrl,
  type RedisClient,
} from '@school/shared';
import mongoose, { type Connection } from 'mongoose';
import type { Provider } from 'oidc-provider';
import { AccountStore } from './accounts/account-store.js';
import { ApprovalStore } from './accounts/approval-requests.js';
import { RoleStore } from './accounts/roles.js';
import { AuditLog } from './audit/audit-log.js';
import { auditProviderEvents } from './audit/provider-events.js';
import type { AuthConfig, StorageConfig } from './config.js';
import type { Logger } from './logger.js';
import { isApiResource, type ProviderDeps } from './provider/configuration.js';
import type { ClientStore } from './storage/client-removal.js';
import { createProvider } from './provider/create-provider.js';
import { installRefreshExtension } from './provider/refresh-extension/index.js';
import { checkDpopReplayFirst } from './provider/dpop-replay-first.js';
import { loadOrCreateKeys } from './provider/keys.js';
import { createIntrospectionCount, type IntrospectionCount } from './storage/introspection-count.js';
import { createRedisAdapter } from './storage/redis-adapter.js';
import { createUsageRecorder, usageResolutionSeconds } from './storage/client-usage.js';
import { createGrantUsageRecorder } from './storage/grant-usage.js';
import { markUsageRecordingStart } from './provider/client-sweep.js';
import { withOutageErrors } from './provider/storage-outage.js';
import { createCimdResolver, resolveForCurrentRequest } from './cimd/cimd-setup.js';
import { refuseUnknownClientsOverLimit, unidentifiedClientCount } from './http/unidentified-client-limit.js';
import type { CimdResolver } from './cimd/cimd-resolver.js';
import { createPasskeys, type Passkeys } from './passkeys/passkeys.js';

/** The auth server's open connections (its storage) and its provider. */
export interface AuthRuntime extends AuthStorage {
  provider: Provider;
  /** The introspection route's count-and-read (storage/introspection-count.ts). */
  countIntrospection: IntrospectionCount;
  /** Where clients live, for removing them (storage/client-removal.ts). */
  clients: ClientStore;
  /** The metadata-document resolver, whose fetch outcomes the metrics count. */
  cimd: CimdResolver;
  /** Passkeys and recovery codes. */
  passkeys: Passkeys;
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

/** The auth server's storage alone: Redis, and MongoDB with the accounts, roles, approvals and audit log. */
export interface AuthStorage {
  redis: RedisClient;
  mongo: Connection;
  accounts: AccountStore;
  /** The school's roles and their ceilings (accounts/roles.ts). */
  roles: RoleStore;
  /** Ask an admin's requests and decisions (accounts/approval-requests.ts). */
  approvals: ApprovalStore;
  audit: AuditLog;
  /** Closes Redis and MongoDB. */
  close(): Promise<void>;
}

/**
 * Connects to Redis and MongoDB and opens the accounts and the audit log: what a command that reads
 * or changes only those needs (no keys, no secrets, no provider). `alongside` runs at the same time,
 * its failure listed with theirs; on any failure everything opened is closed again.
 */
export async function openStorage<T = undefined>(
  config: StorageConfig,
  logger: Logger,
  alongside: Promise<T> = Promise.resolve(undefined as T),
): Promise<AuthStorage & { alongside: T }> {
  // While Redis is unreachable, fail commands at once (503 to the caller) instead of queueing them;
  // ioredis keeps reconnecting in the background, so service resumes by itself (redis-client.ts).
  const redis = createRedisClient(config, 'commands');
  // ioredis rejects a failed connect with "Connection is closed."; the reason is in its last error.
  let redisError: Error | undefined;
  redis.on('error', (err: Error) => {
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
    await Promise.allSettled([closeRedis(redis), mongo.close()]);
  };
  const mongoAt = `MONGODB_URI: cannot use ${redactUrl(config.MONGODB_URI)}`;
  try {
    const [, , alongsideResult] = await allOrProblems([
      attempt(redisProblem(config, 'connect to'), () =>
        redis.connect().catch((err: unknown) => {
          throw redisError ?? err;
        }),
      ),
      attempt(mongoAt, () => mongo.asPromise()),
      alongside,
    ] as const);
    const accounts = new AccountStore(mongo);
    const roles = new RoleStore(mongo);
    const approvals = new ApprovalStore(mongo, config.APPROVAL_REQUEST_DAYS);
    audit = new AuditLog(mongo, logger, config.AUDIT_RETENTION_DAYS);
    await attempt(mongoAt, () =>
      Promise.all([accounts.init(), roles.init(), approvals.init(), audit!.init()]),
    );
    return { redis, mongo, accounts, roles, approvals, audit, close, alongside: alongsideResult };
  } catch (err) {
    await close();
    throw err;
  }
}

/** Connects to Redis and MongoDB, loads (or creates) the keys and builds the provider. */
export async function bootstrap(config: AuthConfig, logger: Logger): Promise<AuthRuntime> {
  const storage = await openStorage(
    config,
    logger,
    attempt('KEYS_FILE', () => loadOrCreateKeys(config.KEYS_FILE)),
  );
  const { redis, mongo, accounts, roles, approvals, audit, alongside: keys } = storage;
  const close = () => storage.close();
  const mongoAt = `MONGODB_URI: cannot use ${redactUrl(config.MONGODB_URI)}`;
  try {
    const passkeys = createPasskeys({
      mongo,
      redis,
      accounts,
      prefix: config.REDIS_KEY_PREFIX,
      baseUrl: config.BASE_URL,
      passwordFallback: config.PASSWORD_FALLBACK,
      secrets: config.COOKIE_SECRETS,
    });
    await attempt(mongoAt, () => passkeys.init());
    const prefix = config.REDIS_KEY_PREFIX;
    const recordClientUse = createUsageRecorder(redis, {
      prefix,
      resolutionSeconds: usageResolutionSeconds(config.CLIENT_IDLE_TTL),
    });
    const recordGrantUse = createGrantUsageRecorder(redis, { prefix, grantTtlSeconds: config.GRANT_TTL });
    const recordUse = (clientId: string, grantId?: string) => {
      recordClientUse(clientId);
      if (grantId) recordGrantUse(grantId);
    };
    await attempt(redisProblem(config, 'use'), () => markUsageRecordingStart(redis, prefix));
    const cimd = createCimdResolver(config, redis, logger);
    const resolveCimdClient = resolveForCurrentRequest(cimd);
    const adapter = withOutageErrors(
      createRedisAdapter(redis, {
        prefix,
        recordUse,
        resolveCimdClient,
        onClientMissing: refuseUnknownClientsOverLimit(
          unidentifiedClientCount(
            redis,
            prefix,
            { points: config.RATE_LIMIT_PER_ADDRESS, seconds: 60 },
            (key) => void audit.record('rate_limited', { details: { reason: 'unknown client', key } }),
          ),
        ),
      }),
    );
    const cimdConsents = { redis, prefix, ttlSeconds: config.GRANT_TTL };
    const provider = buildProvider(
      { config, adapter, accounts, keys, cimdConsents, grantIndex: { redis, prefix } },
      audit,
      logger,
    );
    installRefreshExtension({
      provider,
      redis,
      prefix,
      isApiResource: (indicator) => isApiResource(config, indicator),
      reuseSeconds: config.REFRESH_REUSE_GRACE,
      hostedRaceSeconds: config.HOSTED_REFRESH_RACE,
      audit,
      grantTtlSeconds: config.GRANT_TTL,
    });
    checkDpopReplayFirst(provider); // last: the outermost wrapper, before anything else a grant does
    const countIntrospection = createIntrospectionCount(redis, { prefix });
    const clients: ClientStore = { redis, prefix, provider, audit };
    return {
      redis,
      mongo,
      accounts,
      roles,
      approvals,
      audit,
      provider,
      countIntrospection,
      clients,
      cimd,
      passkeys,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
