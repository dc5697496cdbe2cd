/**
 * The routes on the service's own port that the edge does not route: liveness, readiness that checks
 * what every request needs, and the Prometheus metrics (metrics.ts) when collected. They take any
 * method.
 */
import Router, { type RouterMiddleware } from '@koa/router';
import { SERVICE_ROUTES } from '@school/shared';
import type { AuthMetrics } from './metrics.js';

/**
 * The router of the service routes, at `@school/shared`'s `SERVICE_ROUTES` (the endpoint table's
 * service rows).
 */
export function serviceRoutes(
  readiness: () => Promise<Record<string, string>>,
  metrics: Pick<AuthMetrics, 'scrape'> | undefined,
): Router {
  const answers: Record<keyof typeof SERVICE_ROUTES, RouterMiddleware | undefined> = {
    metrics:
      metrics &&
      async function scrapeMetrics(ctx) {
        const { contentType, body } = await metrics.scrape();
        ctx.type = contentType;
        ctx.body = body;
      },
    healthz(ctx) {
      ctx.body = { status: 'ok' };
    },
    async readyz(ctx) {
      const checks = await readiness();
      ctx.status = Object.values(checks).every((c) => c === 'ok') ? 200 : 503;
      ctx.body = { status: ctx.status === 200 ? 'ok' : 'unavailable', checks };
    },
  };
  // Exactly these paths, as written.
  const router = new Router({ strict: true, sensitive: true });
  for (const [name, answer] of Object.entries(answers))
    if (answer) router.all(SERVICE_ROUTES[name as keyof typeof SERVICE_ROUTES], answer);
  return router;
}
