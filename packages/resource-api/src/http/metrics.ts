/**
 * The resource API's Prometheus metrics, served at `/metrics` on its own port beside
 * `/healthz` and `/readyz` (the edge does not route it). On top of `@school/shared` metrics.ts (Node's
 * default metrics, requests by route template and status, MongoDB, Redis and introspection
 * availability), read from the token verifier's plain counts at scrape time (auth/token-verifier.ts),
 * so a request pays an increment, never a metrics call:
 * - `api_token_checks_total{result}`: `hit`, `negative_hit`, `revoked` or `miss` (introspected);
 * - `api_token_cache_hit_ratio`: hits / (hits + misses) since the process started;
 * - `api_introspections_total{answer}`: `active`, `inactive` or `error` (auth server unavailable);
 * - `api_revocations_received_total`: revoked tokens announced on the Redis feed.
 *
 * The route label is the template of the Express route that answered (`/api/v1/courses/:id`), or
 * `unmatched`: never a raw path.
 */
import { METRICS_PATH, UNMATCHED_ROUTE, createServiceMetrics, type ServiceMetrics } from '@school/shared';
import { Router, type Request } from 'express';
import { Counter, Gauge } from 'prom-client';
import type { TokenVerifier } from '../auth/token-verifier.js';
import { MethodNotAllowedError } from '../lib/errors.js';

/** The route template of an answered request (see the top of this file). */
export function routeOf(req: Request): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof path === 'string') return path;
  if (Array.isArray(path) && path.includes(req.path)) return req.path;
  return UNMATCHED_ROUTE;
}

/** A counter whose series are copied from `read()` at each scrape. */
function countsOf<K extends string>(
  metrics: ServiceMetrics,
  name: string,
  help: string,
  label: string,
  read: () => Record<K, number>,
): void {
  new Counter({
    name,
    help,
    labelNames: [label],
    registers: [metrics.registry],
    collect() {
      this.reset();
      for (const [value, count] of Object.entries<number>(read())) this.inc({ [label]: value }, count);
    },
  });
}

/** Creates the resource API's metrics. */
export function apiMetrics(deps: {
  verifier: TokenVerifier;
  /** The readiness checks (`ok` or what is wrong), run at each scrape. */
  readiness: () => Promise<Record<string, string>>;
}): ServiceMetrics {
  const metrics = createServiceMetrics('api', deps.readiness);
  const { counts } = deps.verifier;
  countsOf(
    metrics,
    'api_token_checks_total',
    'Bearer token checks, by where the verdict came from',
    'result',
    () => counts.lookups,
  );
  countsOf(
    metrics,
    'api_introspections_total',
    'Introspection calls to the auth server, by answer',
    'answer',
    () => counts.introspections,
  );
  new Counter({
    name: 'api_revocations_received_total',
    help: 'Revoked tokens announced on the revocation feed',
    registers: [metrics.registry],
    collect() {
      this.reset();
      this.inc(counts.revocations);
    },
  });
  new Gauge({
    name: 'api_token_cache_hit_ratio',
    help: 'Token checks answered by the positive cache, over those that were hits or misses, since start',
    registers: [metrics.registry],
    collect() {
      const { hit, miss } = counts.lookups;
      this.set(hit + miss === 0 ? 0 : hit / (hit + miss));
    },
  });
  return metrics;
}

/** `GET /metrics`: the exposition; other methods 405. */
export function metricsRouter(metrics: ServiceMetrics): Router {
  const router = Router();
  router.get(METRICS_PATH, async (_req, res) => {
    const { contentType, body } = await metrics.scrape();
    res.set('Cache-Control', 'no-store').type(contentType).send(body);
  });
  router.all(METRICS_PATH, (_req, _res, next) => next(new MethodNotAllowedError(['GET', 'HEAD'])));
  return router;
}
