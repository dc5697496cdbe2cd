/**
 * The auth server's Prometheus metrics, served at `/metrics` on its own port beside
 * `/healthz` and `/readyz` (the edge does not route it). On top of `@school/shared` metrics.ts (Node's
 * default metrics, requests by route template and status, Redis and MongoDB availability):
 * - `auth_tokens_issued_total{grant_type}`: oidc-provider's `grant.success`, by grant type;
 * - `auth_security_events_total{event}`: every audit event as it is recorded (audit/audit-log.ts):
 *   login failures and locks, rate-limit refusals, revocations, refresh-token reuse, code replay,
 *   consents, registrations. One series per event type, all present from the start at 0;
 * - `auth_cimd_fetches_total{status}`: Client ID Metadata Document resolutions that fetched (or
 *   failed to), by outcome (`fresh`, `stale`, `failed`, `invalid`: cimd/cimd-resolver.ts), never by URL;
 * - `auth_direct_introspections_total`: introspections answered by http/direct-introspection.ts
 *   (the rest of the introspection route's requests went through oidc-provider).
 *
 * The route label is the path only where it is one of the server's fixed endpoints, the login and
 * consent router's template where that router matched, oidc-provider's template for its two routes
 * with an id in the path, and `unmatched` otherwise: never a raw path.
 */
import {
  DISCOVERY_PATHS,
  METRICS_PATH,
  OAUTH_ROUTES,
  UNMATCHED_ROUTE,
  createServiceMetrics,
  type ServiceMetrics,
} from '@school/shared';
import type { Context } from 'koa';
import type { KoaContextWithOIDC, Provider } from 'oidc-provider';
import { Counter } from 'prom-client';
import { AUDIT_EVENT_TYPES, type AuditLog } from '../audit/audit-log.js';
import { CIMD_STATUSES, type CimdResolver } from '../cimd/cimd-resolver.js';

/** The grant types counted by name (the rest, if any ever succeeds, as `other`). */
const GRANT_TYPES = new Set(['authorization_code', 'refresh_token', 'client_credentials']);

/** The endpoints whose path is their own template. */
const FIXED_PATHS: ReadonlySet<string> = new Set([
  ...Object.values(OAUTH_ROUTES),
  DISCOVERY_PATHS.authorizationServer,
  DISCOVERY_PATHS.openidConfiguration,
  '/healthz',
  '/readyz',
  METRICS_PATH,
]);

/** The route template of an answered request (see the top of this file). */
export function routeOf(ctx: Context): string {
  if (FIXED_PATHS.has(ctx.path)) return ctx.path;
  const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
  if (typeof matched === 'string') return matched;
  const route = (ctx as unknown as Partial<KoaContextWithOIDC>).oidc?.route;
  if (route === 'resume') return `${OAUTH_ROUTES.authorization}/:uid`;
  if (route === 'client' || route === 'client_update' || route === 'client_delete')
    return `${OAUTH_ROUTES.registration}/:clientId`;
  return UNMATCHED_ROUTE;
}

/** The shared service metrics, and what only the auth server counts outside events. */
export type AuthMetrics = ServiceMetrics & {
  /** One introspection answered by http/direct-introspection.ts. */
  directIntrospection: () => void;
};

/** Creates the auth server's metrics and subscribes them to the provider's and the audit log's events. */
export function authMetrics(deps: {
  provider: Provider;
  audit: AuditLog;
  /** The readiness checks (`ok` or what is wrong), run at each scrape. */
  readiness: () => Promise<Record<string, string>>;
  /** The metadata-document resolver, when there is one. */
  cimd?: Pick<CimdResolver, 'observe'>;
}): AuthMetrics {
  const metrics = createServiceMetrics('auth', deps.readiness);
  const tokens = new Counter({
    name: 'auth_tokens_issued_total',
    help: 'Successful token requests, by grant type',
    labelNames: ['grant_type'] as const,
    registers: [metrics.registry],
  });
  for (const grantType of GRANT_TYPES) tokens.inc({ grant_type: grantType }, 0);
  deps.provider.on('grant.success', (ctx: KoaContextWithOIDC) => {
    const given = ctx.oidc.params?.grant_type;
    tokens.inc({ grant_type: typeof given === 'string' && GRANT_TYPES.has(given) ? given : 'other' });
  });
  const direct = new Counter({
    name: 'auth_direct_introspections_total',
    help: "Introspections of active access tokens answered without oidc-provider's request pipeline (http/direct-introspection.ts)",
    registers: [metrics.registry],
  });
  const events = new Counter({
    name: 'auth_security_events_total',
    help: 'Security events recorded in the audit log, by type',
    labelNames: ['event'] as const,
    registers: [metrics.registry],
  });
  for (const event of AUDIT_EVENT_TYPES) events.inc({ event }, 0);
  deps.audit.observe((event) => events.inc({ event }));
  const cimdFetches = new Counter({
    name: 'auth_cimd_fetches_total',
    help: 'Client ID Metadata Document fetches, by outcome',
    labelNames: ['status'] as const,
    registers: [metrics.registry],
  });
  for (const status of CIMD_STATUSES) cimdFetches.inc({ status }, 0);
  deps.cimd?.observe((outcome) => cimdFetches.inc({ status: outcome.status }));
  return { ...metrics, directIntrospection: () => direct.inc() };
}
