/**
 * Prometheus metrics both services share ("Seeing a fleet"), on prom-client: one registry
 * per service process with Node's default metrics (event-loop lag, GC, heap, CPU), every request in
 * one latency histogram by method, route template and status, and the availability of each
 * dependency, probed when Prometheus scrapes (never on a request's path). Each service adds its own
 * counters to `registry` and serves {@link ServiceMetrics.scrape} at `/metrics` on its own port; the
 * edge does not route that path.
 *
 * Label values are bounded by construction: the method is one of {@link HTTP_METHODS} or `OTHER`, the
 * route is a template the service declared (or `unmatched`), the status a number the server chose.
 * Raw paths, client ids, tokens and addresses never become labels: a scraper would keep one series per
 * value forever, and an attacker could grow that without bound.
 */
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** The methods counted by name; any other is counted as `OTHER`. */
export const HTTP_METHODS: ReadonlySet<string> = new Set([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
]);

/** The route label of a request no declared route matched. */
export const UNMATCHED_ROUTE = 'unmatched';

/** Where both services serve their metrics, on their own port. */
export const METRICS_PATH = '/metrics';

/** Request latency buckets, seconds: a cached API read takes about a millisecond. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** One service's metrics (see the top of this file). */
export interface ServiceMetrics {
  /** Where the service registers its own metrics. */
  registry: Registry;
  /** Counts one answered request (a label of each bounded set, see the top of this file). */
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  /** The exposition: the content type and the text of every metric, probes run now. */
  scrape(): Promise<{ contentType: string; body: string }>;
}

/**
 * Creates the registry of `service`. `dependencies` is probed at each scrape (each entry `ok` or what
 * is wrong, e.g. the readiness checks) into `<prefix>_dependency_up{dependency}` as 1 or 0.
 */
export function createServiceMetrics(
  prefix: string,
  dependencies: () => Promise<Record<string, string>>,
): ServiceMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Histogram({
    name: `${prefix}_http_request_duration_seconds`,
    help: 'Requests answered, by method, route template and status, and how long they took',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  new Gauge({
    name: `${prefix}_dependency_up`,
    help: 'Whether a dependency answered its check at the last scrape (1) or not (0)',
    labelNames: ['dependency'] as const,
    registers: [registry],
    async collect() {
      const checks = await dependencies().catch(() => ({}));
      this.reset();
      for (const [dependency, state] of Object.entries(checks))
        this.set({ dependency }, state === 'ok' ? 1 : 0);
    },
  });
  return {
    registry,
    observeRequest(method, route, status, seconds) {
      requests.observe({ method: HTTP_METHODS.has(method) ? method : 'OTHER', route, status }, seconds);
    },
    async scrape() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
