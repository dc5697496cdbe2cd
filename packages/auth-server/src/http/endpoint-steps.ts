/**
 * The steps in front of oidc-provider, one named stack per row of the endpoint table
 * (`@school/shared` oauth-endpoints.ts): CORS (first, so an error answer keeps the headers a browser
 * needs to read it), the row's methods, its body cap, its shortcut (a step of ours answering some
 * requests before oidc-provider; it counts those under the row's rate limit itself, in the script
 * that reads what it needs), its rate limit, its client authentication. A row without one of them
 * has no such step. A path finds its row the way oidc-provider finds its
 * route (whatever the letter case, with or without a trailing slash); each row's stack is composed
 * once, when the app is built, since these steps run before every OAuth request.
 */
import type { Endpoint, EndpointShortcut } from '@school/shared';
import type { Middleware } from 'koa';
import compose from 'koa-compose';
import { allowMethods } from './allowed-methods.js';
import { bodyCap } from './body-cap.js';
import { cors } from './cors.js';
import type { RateLimiting } from './rate-limit.js';
import { strictClientAuthentication } from './strict-client-authentication.js';
import type { UnidentifiedClientCount } from './unidentified-client-limit.js';

/** What the steps are made with. */
export interface EndpointStepDeps {
  /** The rate limits (rate-limit.ts). */
  limits: RateLimiting;
  /** Counts refused client authentication against the address (unidentified-client-limit.ts). */
  unidentifiedClients: UnidentifiedClientCount;
  /** The realm of the `WWW-Authenticate` challenge of a refused `Authorization` header. */
  realm: string;
  /** The shortcut steps switched on (DIRECT_INTROSPECTION=false leaves `direct-introspection` out). */
  shortcuts?: Partial<Record<EndpointShortcut, Middleware>>;
}

/** The named steps of one row, in order. */
export function endpointSteps(row: Endpoint, deps: EndpointStepDeps): Middleware[] {
  return [
    cors(row),
    allowMethods(row.methods),
    ...(row.body ? [bodyCap(row.body)] : []),
    ...(row.shortcut && deps.shortcuts?.[row.shortcut] ? [deps.shortcuts[row.shortcut]!] : []),
    ...(row.rateLimit ? [deps.limits.step(row.rateLimit)] : []),
    ...(row.clientAuthentication
      ? [strictClientAuthentication(row.clientAuthentication, deps.realm, deps.unidentifiedClients)]
      : []),
  ];
}

/** A step running each row's steps on its path, then going on to what follows (oidc-provider). */
export function endpointDispatch(rows: readonly Endpoint[], deps: EndpointStepDeps): Middleware {
  const exact = new Map<string, Middleware>();
  const templates: Array<[RegExp, Middleware]> = [];
  for (const row of rows) {
    const steps = compose(endpointSteps(row, deps));
    if (row.path.includes('/:'))
      templates.push([new RegExp(`^${row.path.replace(/:[^/]+/g, '[^/]+')}/?$`, 'i'), steps]);
    else exact.set(row.path.toLowerCase(), steps);
  }
  return async function endpointStepsOf(ctx, next) {
    const path = ctx.path.length > 1 && ctx.path.endsWith('/') ? ctx.path.slice(0, -1) : ctx.path;
    const steps = exact.get(path.toLowerCase()) ?? templates.find(([re]) => re.test(path))?.[1];
    await (steps ? steps(ctx, next) : next());
  };
}
