/**
 * The steps in front of oidc-provider, one named stack per row of the endpoint table
 * (`@school/shared` oauth-endpoints.ts): CORS (first, so an error answer keeps the headers a browser
 * needs to read it), the row's methods, its body cap, its rate limit, its client authentication.
 * A row without one of them has no such step. Mounted on a router with the rows' paths, so a path
 * matches its row the way oidc-provider matches its route (case and a trailing slash aside).
 */
import Router from '@koa/router';
import type { Endpoint } from '@school/shared';
import type { Middleware } from 'koa';
import { allowMethods } from './allowed-methods.js';
import { bodyCap } from './body-cap.js';
import { cors } from './cors.js';
import type { RateLimitStep } from './rate-limit.js';
import { strictClientAuthentication } from './strict-client-authentication.js';
import type { UnidentifiedClientCount } from './unidentified-client-limit.js';

/** What the steps are made with. */
export interface EndpointStepDeps {
  /** The rate-limit steps (rate-limit.ts). */
  limit: RateLimitStep;
  /** Counts refused client authentication against the address (unidentified-client-limit.ts). */
  unidentifiedClients: UnidentifiedClientCount;
  /** The realm of the `WWW-Authenticate` challenge of a refused `Authorization` header. */
  realm: string;
}

/** The named steps of one row, in order. */
export function endpointSteps(row: Endpoint, deps: EndpointStepDeps): Middleware[] {
  return [
    cors(row),
    allowMethods(row.methods),
    ...(row.body ? [bodyCap(row.body)] : []),
    ...(row.rateLimit ? [deps.limit(row.rateLimit)] : []),
    ...(row.clientAuthentication
      ? [strictClientAuthentication(row.clientAuthentication, deps.realm, deps.unidentifiedClients)]
      : []),
  ];
}

/** A router running each row's steps on its path, then going on to what follows (oidc-provider). */
export function endpointRouter(rows: readonly Endpoint[], deps: EndpointStepDeps): Router {
  const router = new Router();
  for (const row of rows) router.all(row.path, ...endpointSteps(row, deps));
  return router;
}
