/**
 * The routes on the service's own port that the edge does not route: liveness, readiness that checks
 * what every request needs, and the Prometheus metrics (metrics.ts) when collected. They take any
 * method.
 */
import Router from '@koa/router';
import { METRICS_PATH } from '@school/shared';
import type { AuthMetrics } from './metrics.js';

/** The router of the service routes. */
export function serviceRoutes(
  readiness: () => Promise<Record<string, string>>,
  metrics: Pick<AuthMetrics, 'scrape'> | undefined,
): Router {
  // Exactly these paths, as written.
  const router = new Router({ strict: true, sensitive: true });
  if (metrics)
    router.all(METRICS_PATH, async (ctx) => {
      const { contentType, body } = await metrics.scrape();
      ctx.type = contentType;
      ctx.body = body;
    });
  router.all('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.all('/readyz', async (ctx) => {
    const checks = await readiness();
    ctx.status = Object.values(checks).every((c) => c === 'ok') ? 200 : 503;
    ctx.body = { status: ctx.status === 200 ? 'ok' : 'unavailable', checks };
  });
  return router;
}
