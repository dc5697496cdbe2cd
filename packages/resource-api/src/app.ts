/**
 * The resource API's Express application: security headers and request ids, every registry operation
 * under `/api/v1`, the health and metrics routes, the documents for clients (protected-resource metadata,
 * OpenAPI, auth.md), then a JSON 404 and the one error handler.
 */
import express, { type Express } from 'express';
import helmet from 'helmet';
import type { RedisClient } from '@school/shared';
import type { Connection } from 'mongoose';
import { bearer } from './auth/bearer.js';
import type { ProofFirstSeen } from './auth/dpop-proof.js';
import { challenges } from './auth/challenges.js';
import type { IntrospectionReadiness } from './auth/introspection-readiness.js';
import type { TokenVerifier } from './auth/token-verifier.js';
import { scopeUseNotes, type ScopeUseReporter } from './auth/scope-use.js';
import { prmUrl, type ApiConfig } from './config.js';
import { CORS_MOUNTS, crossOrigin } from './http/cors.js';
import { docsRouter } from './http/docs.js';
import { errorHandler, notFound } from './http/error-handler.js';
import { healthRouter, readinessChecks } from './http/health.js';
import { apiMetrics, metricsRouter } from './http/metrics.js';
import { requestLog } from './http/request-log.js';
import { checkRequestTarget } from './http/request-target.js';
import { operationsRouter } from './http/operations-router.js';
import type { AreaModule } from './lib/operation.js';
import type { Logger } from './logger.js';

/** What the app is built from. */
export interface AppDeps {
  config: ApiConfig;
  connection: Connection;
  /** Any live Redis connection, for readiness. */
  redis: RedisClient;
  verifier: TokenVerifier;
  /** Where uses of scopes are reported (the introspection client); absent: not reported. */
  scopeUses?: ScopeUseReporter;
  /** The DPoP proof replay check every instance shares (auth/dpop-replay.ts). */
  dpopProofs: ProofFirstSeen;
  /** Whether introspection works with this API's credentials, for readiness. */
  introspectionReady: IntrospectionReadiness;
  registry: readonly AreaModule[];
  logger: Logger;
}

/**
 * The headers on every answer, errors and 404s included (helmet): the API serves JSON and Markdown
 * only, so its CSP allows nothing at all and no framing; nosniff; no referrer; HSTS only when the
 * public origin is https (over plain http it would be ignored, and wrong behind a misconfigured edge).
 */
export function securityHeaders(config: Pick<ApiConfig, 'BASE_URL'>) {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
    },
    strictTransportSecurity: config.BASE_URL.startsWith('https:')
      ? { maxAge: 31_536_000, includeSubDomains: false }
      : false,
    referrerPolicy: { policy: 'no-referrer' },
    frameguard: { action: 'deny' },
  });
}

/** Builds the Express application (not yet listening). */
export function createApp({
  config,
  connection,
  redis,
  verifier,
  scopeUses,
  dpopProofs,
  introspectionReady,
  registry,
  logger,
}: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Behind the edge, exactly one hop is trusted (a number, not `true`): req.ip is the right-most
  // X-Forwarded-For entry, the address the edge saw; the client's own entries are never read.
  app.set('trust proxy', config.TRUST_PROXY ? 1 : false);
  app.set('query parser', 'simple');

  const health = { connection, redis, introspection: introspectionReady };
  // METRICS=false (an operator who scrapes nothing, the bench's comparison): nothing collected, no route.
  const metrics = config.METRICS
    ? apiMetrics({ verifier, readiness: () => readinessChecks(health) })
    : undefined;
  app.use(securityHeaders(config));
  app.use(requestLog(logger, metrics));
  app.use(checkRequestTarget);
  app.use(CORS_MOUNTS, crossOrigin);

  // The operations first: they are nearly all the traffic, and their paths (all under /api/v1) and
  // those of the health and document routes never overlap, so the order changes no answer.
  const challenge = challenges(prmUrl(config));
  app.use(
    operationsRouter(registry, {
      services: { config, connection, logger },
      authenticate: bearer(verifier, challenge, logger, { origin: config.BASE_URL, seen: dpopProofs }),
      challenges: challenge,
      noteUse: scopeUses ? scopeUseNotes(scopeUses) : undefined,
    }),
  );
  app.use(healthRouter(health));
  if (metrics) app.use(metricsRouter(metrics));
  app.use(docsRouter(config, registry));

  app.use(notFound);
  app.use(errorHandler(logger));
  return app;
}
