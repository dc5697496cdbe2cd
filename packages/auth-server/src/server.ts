/**
 * Starts the auth server: {@link bootstrap} plus the HTTP listener. `main.ts` calls it for the real
 * process; the integration tests call it to boot the same server in-process on a random port.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import { bootstrap, type AuthRuntime } from './bootstrap.js';
import type { AuthConfig } from './config.js';
import type { Logger } from './logger.js';

/** A started auth server. */
export interface RunningAuthServer extends AuthRuntime {
  /** Where it listens, e.g. `http://127.0.0.1:8080`. */
  url: string;
  port: number;
  server: Server;
  /** Stops accepting connections, lets in-flight requests finish, then closes Redis and MongoDB. */
  close(): Promise<void>;
}

/** Bootstraps and listens on `config.AUTH_HOST:config.port` (port 0: a free one). */
export async function startAuthServer(config: AuthConfig, logger: Logger): Promise<RunningAuthServer> {
  const runtime = await bootstrap(config, logger);
  try {
    const readiness = async () => {
      const check = (p: Promise<unknown>) =>
        Promise.race([
          p.then(() => 'ok'),
          new Promise<string>((r) => setTimeout(() => r('timeout'), 1000)),
        ]).catch((err: unknown) => (err instanceof Error ? err.message : 'failed'));
      const [redis, mongodb] = await Promise.all([
        check(runtime.redis.ping()),
        check(runtime.mongo.db!.admin().ping()),
      ]);
      return { redis, mongodb };
    };
    const app = createApp({
      config,
      provider: runtime.provider,
      accounts: runtime.accounts,
      logger,
      readiness,
      redis: runtime.redis,
      audit: runtime.audit,
      countIntrospection: runtime.countIntrospection,
    });
    const server = createServer(app.callback());
    server.keepAliveTimeout = 65_000; // longer than clients' idle timeouts, to avoid reset races
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.AUTH_HOST, resolve);
    });
    const { port } = server.address() as AddressInfo;
    const host = config.AUTH_HOST.includes(':') ? `[${config.AUTH_HOST}]` : config.AUTH_HOST;
    return {
      ...runtime,
      url: `http://${host}:${port}`,
      port,
      server,
      async close() {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        });
        await runtime.close();
      },
    };
  } catch (err) {
    await runtime.close();
    throw err;
  }
}
