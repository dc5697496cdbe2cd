/**
 * Starts the auth server: {@link bootstrap} plus the HTTP listener. `main.ts` calls it for the real
 * process; the integration tests call it to boot the same server in-process on a random port.
 */
import { createServer, type Server } from 'node:http';
import type Koa from 'koa';
import { checkRedis, listen, stopServer } from '@school/shared';
import { createApp } from './app.js';
import { bootstrap, type AuthRuntime } from './bootstrap.js';
import { startClientSweeper } from './provider/client-sweeper.js';
import type { AuthConfig } from './config.js';
import type { Logger } from './logger.js';

/** Largest request line and headers (Node's default, said here so the 431 answer can name it). */
const MAX_HEADER_SIZE = 16 * 1024;

/** A started auth server. */
export interface RunningAuthServer extends AuthRuntime {
  /** Where it listens, e.g. `http://127.0.0.1:8080`. */
  url: string;
  port: number;
  server: Server;
  /** The application the server answers with. */
  app: Koa;
  /**
   * Stops accepting connections, lets in-flight requests finish, then closes Redis and MongoDB.
   * `drain`: the way a stopping process leaves the edge's pool (`@school/shared` drainServer).
   */
  close(drain?: boolean): Promise<void>;
}

/** Bootstraps and listens on `config.AUTH_HOST:config.port` (port 0: a free one). */
export async function startAuthServer(config: AuthConfig, logger: Logger): Promise<RunningAuthServer> {
  const runtime = await bootstrap(config, logger);
  try {
    const readiness = async () => {
      const [redis, mongodb] = await Promise.all([
        probe(() => checkRedis(runtime.redis)),
        probe(() => runtime.mongo.db!.admin().ping()),
      ]);
      return { redis, mongodb };
    };
    const app = createApp({
      config,
      provider: runtime.provider,
      accounts: runtime.accounts,
      roles: runtime.roles,
      approvals: runtime.approvals,
      logger,
      readiness,
      redis: runtime.redis,
      audit: runtime.audit,
      countIntrospection: runtime.countIntrospection,
      cimd: runtime.cimd,
      passkeys: runtime.passkeys,
    });
    // Koa's handler answers its own errors; its promise carries nothing more to wait for.
    const handle = app.callback();
    const server = createServer({ maxHeaderSize: MAX_HEADER_SIZE }, (req, res) => void handle(req, res));
    const { port, url } = await listen(server, {
      host: config.AUTH_HOST,
      port: config.port,
      variables: 'AUTH_HOST/AUTH_PORT',
      maxHeaderSize: MAX_HEADER_SIZE,
      hsts: config.BASE_URL.startsWith('https:'),
      logger,
    });
    const sweeper = startClientSweeper(
      runtime.clients,
      { unusedSeconds: config.CLIENT_UNUSED_TTL, idleSeconds: config.CLIENT_IDLE_TTL },
      config.CLIENT_SWEEP_INTERVAL,
      logger,
    );
    return {
      ...runtime,
      url,
      port,
      server,
      app,
      async close(drain = false) {
        await stopServer(server, drain);
        await sweeper.stop();
        await runtime.close();
      },
    };
  } catch (err) {
    await runtime.close();
    throw err;
  }
}

/**
 * One readiness check: `ok`, or what is wrong (`timed out after 1000 ms`, the driver's message).
 * The timer is cleared as soon as the check settles, so probes leave nothing behind.
 */
async function probe(check: () => Promise<unknown>, timeoutMs = 1000): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return 'ok';
  } catch (err) {
    return err instanceof Error ? err.message : 'failed';
  } finally {
    clearTimeout(timer);
  }
}
