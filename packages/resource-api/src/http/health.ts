/**
 * `/healthz` (liveness: the process answers; no dependency is consulted, so it stays cheap and an
 * outage elsewhere never gets this process restarted) and `/readyz` (readiness: what serving needs
 * answers: MongoDB, the Redis revocation feed, and introspection with this API's own credentials).
 *
 * Introspection is part of readiness: with a wrong secret or an unreachable
 * auth server every token check is a 503, so an instance in that state is not ready, even though it
 * could still serve anonymous requests and cached tokens. The introspection check is cached for a
 * few seconds (auth/introspection-readiness.ts), so probes cannot amplify load on the auth server.
 */
import { Router } from 'express';
import type { IntrospectionReadiness } from '../auth/introspection-readiness.js';
import { MethodNotAllowedError } from '../lib/errors.js';
import { checkRedis, type RedisClient } from '@school/shared';
import type { Connection } from 'mongoose';

async function probe(check: () => Promise<unknown>, timeoutMs = 2000): Promise<'ok' | 'down'> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
      }),
    ]);
    return 'ok';
  } catch {
    return 'down';
  } finally {
    clearTimeout(timer);
  }
}

/** What readiness checks. */
export interface ReadinessDeps {
  connection: Connection;
  redis: RedisClient;
  introspection: IntrospectionReadiness;
}

/** Runs the readiness checks (also the metrics' dependency probes): each `ok` or `down`. */
export async function readinessChecks(deps: ReadinessDeps): Promise<Record<string, string>> {
  const [mongodb, redis, introspection] = await Promise.all([
    probe(() => deps.connection.db!.command({ ping: 1 })),
    probe(() => checkRedis(deps.redis)),
    deps.introspection(),
  ]);
  return { mongodb, redis, introspection };
}

/** The two health routes. */
export function healthRouter(deps: ReadinessDeps): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const checks = await readinessChecks(deps);
    const ok = Object.values(checks).every((c) => c === 'ok');
    res
      .status(ok ? 200 : 503)
      .set('Cache-Control', 'no-store')
      .json({ status: ok ? 'ok' : 'unavailable', checks });
  });
  router.all(['/healthz', '/readyz'], (_req, _res, next) => next(new MethodNotAllowedError(['GET', 'HEAD'])));
  return router;
}
