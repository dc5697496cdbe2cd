/**
 * Starts the resource API: MongoDB, the introspection client and its cache, the Redis revocation
 * feed, a Redis connection for DPoP proof replay (used only by calls of DPoP-bound tokens), the app
 * and its listener. `main.ts` calls it for the real process; the tests call it to boot
 * the same server in-process (two of them for the revocation test) on random ports.
 *
 * MongoDB and Redis are opened together; a failure names its variable and the address it points at
 * (password redacted), every failure at once (`@school/shared` startup-errors.ts).
 */
import { createServer, type Server } from 'node:http';
import {
  allOrProblems,
  attempt,
  closeRedis,
  createRedisClient,
  listen,
  redactUrl,
  redisProblem,
  stopServer,
} from '@school/shared';
import mongoose, { type Connection } from 'mongoose';
import { createApp } from './app.js';
import { proofsSeenIn } from './auth/dpop-replay.js';
import { IntrospectionClient, type Introspector } from './auth/introspection-client.js';
import { introspectionReadiness } from './auth/introspection-readiness.js';
import { listenForRevocations } from './auth/revocation-listener.js';
import { TokenVerifier } from './auth/token-verifier.js';
import { REGISTRY } from './areas/index.js';
import type { ApiConfig } from './config.js';
import type { AreaModule } from './lib/operation.js';
import type { Logger } from './logger.js';

/** Largest request line plus headers (Node's default, stated here so the 431 answer can name it). */
const MAX_HEADER_SIZE = 16 * 1024;

/** A started resource API. */
export interface RunningResourceApi {
  url: string;
  port: number;
  server: Server;
  connection: Connection;
  verifier: TokenVerifier;
  introspector: IntrospectionClient;
  /**
   * Stops accepting connections, finishes in-flight requests, closes Redis, MongoDB and the pool.
   * `drain`: the way a stopping process leaves the edge's pool (`@school/shared` drainServer).
   */
  close(drain?: boolean): Promise<void>;
}

/** Options for tests: a different registry, or an introspector wrapper (e.g. one that counts calls). */
export interface StartOptions {
  registry?: readonly AreaModule[];
  wrapIntrospector?: (inner: Introspector) => Introspector;
}

/** Creates the indexes (unique slugs, codes, emails) of every area. */
export async function initAreas(
  connection: Connection,
  registry: readonly AreaModule[] = REGISTRY,
): Promise<void> {
  for (const area of registry) await area.init?.(connection);
}

/** Connects everything and listens on `API_HOST:API_PORT` (port 0: a free one). */
export async function startResourceApi(
  config: ApiConfig,
  logger: Logger,
  options: StartOptions = {},
): Promise<RunningResourceApi> {
  const registry = options.registry ?? REGISTRY;
  const closers: (() => Promise<unknown>)[] = [];
  const closeAll = async () => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
  };
  try {
    const connection = mongoose.createConnection(config.MONGODB_URI, {
      serverSelectionTimeoutMS: 5000,
      autoIndex: false,
    });
    closers.push(() => connection.close());
    const introspector = new IntrospectionClient({
      authUrl: config.AUTH_INTERNAL_URL,
      clientId: config.INTROSPECTION_CLIENT_ID,
      clientSecret: config.INTROSPECTION_CLIENT_SECRET,
      timeoutMs: config.INTROSPECTION_TIMEOUT_MS,
    });
    closers.push(() => introspector.close());
    const verifier = new TokenVerifier(options.wrapIntrospector?.(introspector) ?? introspector, {
      resource: config.BASE_URL,
      ttlSeconds: config.INTROSPECTION_CACHE_TTL,
      size: config.INTROSPECTION_CACHE_SIZE,
      negativeTtlSeconds: config.NEGATIVE_CACHE_TTL,
      negativeSize: config.NEGATIVE_CACHE_SIZE,
    });
    const mongoAt = `MONGODB_URI: cannot use ${redactUrl(config.MONGODB_URI)}`;
    const feeding = attempt(redisProblem(config, 'subscribe at'), () =>
      listenForRevocations(config, config.REDIS_KEY_PREFIX, verifier, logger),
    );
    // Whichever way the start goes, a feed that came up is closed with the rest.
    closers.push(() => feeding.then((f) => f.close()));
    const commands = createRedisClient(config, 'commands');
    closers.push(() => closeRedis(commands));
    // ioredis rejects a failed connect with "Connection is closed."; the reason is in its last error.
    let commandsError: Error | undefined;
    commands.on('error', (err: Error) => {
      commandsError = err;
      logger.warn({ err: err.message }, 'redis connection error (DPoP proof replay)');
    });
    const [, feed] = await allOrProblems([
      attempt(mongoAt, () => connection.asPromise()),
      feeding,
      attempt(redisProblem(config, 'connect to'), () =>
        commands.connect().catch((err: unknown) => {
          throw commandsError ?? err;
        }),
      ),
    ] as const);
    await attempt(mongoAt, () => initAreas(connection, registry));

    const app = createApp({
      config,
      connection,
      redis: feed.redis,
      verifier,
      scopeUses: introspector,
      dpopProofs: proofsSeenIn(commands, config.REDIS_KEY_PREFIX),
      introspectionReady: introspectionReadiness(introspector),
      registry,
      logger,
    });
    const server = createServer(
      {
        maxHeaderSize: MAX_HEADER_SIZE,
        requestTimeout: config.REQUEST_TIMEOUT_MS,
        headersTimeout: Math.min(20_000, config.REQUEST_TIMEOUT_MS),
        // How often those two are checked (Node's default, 30 s, would let a stalled client linger).
        connectionsCheckingInterval: 1000,
      },
      app,
    );
    const { port, url } = await listen(server, {
      host: config.API_HOST,
      port: config.API_PORT,
      variables: 'API_HOST/API_PORT',
      maxHeaderSize: MAX_HEADER_SIZE,
      hsts: config.BASE_URL.startsWith('https:'),
      logger,
    });
    return {
      url,
      port,
      server,
      connection,
      verifier,
      introspector,
      async close(drain = false) {
        await stopServer(server, drain);
        await closeAll();
      },
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}
