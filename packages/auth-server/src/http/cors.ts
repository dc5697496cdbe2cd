/**
 * CORS for browser-based clients (OAuth 2.0 for Browser-Based Applications):
 * a browser MCP client (the MCP Inspector runs in a page) must be able to read the discovery
 * documents and the JWKS, register, redeem and refresh at the token endpoint, revoke and call
 * userinfo. Those endpoints answer any origin with `Access-Control-Allow-Origin: *` and never
 * `Allow-Credentials`: they authenticate by what the request carries (a client secret, a code and
 * its verifier, a bearer token), never by cookies, so a page on another origin gains nothing a
 * native app could not do.
 *
 * Everything else gets no CORS at all, so a page on another origin can neither read nor drive it:
 * the authorization endpoint and the login and consent pages (a browser navigates to them, it never
 * fetches them; their cookies must stay first-party), introspection (server to server, the
 * resource API's secret must never sit in a browser), health and anything new by default.
 * oidc-provider adds its own CORS headers to several routes (introspection among them, echoing the
 * request's Origin); they are removed here from every path not listed.
 */
import koaCors from '@koa/cors';
import type { Middleware } from 'koa';
import { OAUTH_ROUTES } from '@school/shared';
import { allowedFor } from './method-guard.js';

/** The paths a browser-based client may call cross-origin. */
export const CORS_PATHS: ReadonlySet<string> = new Set([
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration',
  OAUTH_ROUTES.jwks,
  OAUTH_ROUTES.registration,
  OAUTH_ROUTES.token,
  OAUTH_ROUTES.revocation,
  OAUTH_ROUTES.userinfo,
]);

/** Headers a browser client must be able to read: the bearer challenge and the rate-limit delay. */
const EXPOSED = ['WWW-Authenticate', 'Retry-After'];

const byPath = new Map(
  [...CORS_PATHS].map((path) => [
    path,
    koaCors({
      origin: '*',
      credentials: false,
      allowMethods: allowedFor(path) ?? ['GET', 'HEAD'],
      exposeHeaders: EXPOSED,
      maxAge: 600,
    }),
  ]),
);

/** Koa middleware: CORS without credentials on {@link CORS_PATHS}, none anywhere else. */
export const cors: Middleware = async (ctx, next) => {
  const open = byPath.get(ctx.path);
  if (open) return open(ctx, next);
  await next();
  for (const name of Object.keys(ctx.response.headers)) {
    if (name.toLowerCase().startsWith('access-control-')) ctx.remove(name);
  }
};
