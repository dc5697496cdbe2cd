/**
 * `/healthz` (liveness: the process answers) and `/readyz` (readiness: MongoDB and the Redis
 * revocation feed answer). The auth server is deliberately not part of readiness: when it is down the
 * API still serves anonymous requests and cached tokens, and answers 503 only where it must.
 */
import { Router } from 'express';
import { MethodNotAllowedError } from '../lib/errors.js';
import type { Redis } from 'ioredis';
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

/** The two health routes. */
export function healthRouter(deps: { connection: Connection; redis: Redis }): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const [mongodb, redis] = await Promise.all([
      probe(() => deps.connection.db!.command({ ping: 1 })),
      probe(() => deps.redis.ping()),
    ]);
    const ok = mongodb === 'ok' && redis === 'ok';
    res
      .status(ok ? 200 : 503)
      .set('Cache-Control', 'no-store')
      .json({ status: ok ? 'ok' : 'unavailable', checks: { mongodb, redis } });
  });
  router.all(['/healthz', '/readyz'], (_req, _res, next) => next(new MethodNotAllowedError(['GET', 'HEAD'])));
  return router;
}
