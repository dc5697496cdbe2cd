/**
 * CORS for browser-based clients (OAuth 2.0 for Browser-Based Applications):
 * a browser MCP client (the MCP Inspector runs in a page) must be able to read the discovery
 * documents and the JWKS, register, redeem and refresh at the token endpoint, revoke and call
 * userinfo. Those endpoints answer any origin with `Access-Control-Allow-Origin: *` and never
 * `Allow-Credentials`: they authenticate by what the request carries (a client secret, a code and
 * its verifier, a bearer token), never by cookies, so a page on another origin gains nothing a
 * native app could not do.
 *
 * Those are the rows of the endpoint table with `cors: true`.
 * Everything else gets no CORS at all, so a page on another origin can neither read nor drive it:
 * the authorization endpoint and the login and consent pages (a browser navigates to them, it never
 * fetches them; their cookies must stay first-party), introspection (server to server, the
 * resource API's secret must never sit in a browser), health and anything new by default.
 * oidc-provider adds its own CORS headers to several routes (introspection among them, echoing the
 * request's Origin); they are removed from the answers of every row without `cors`.
 */
import koaCors from '@koa/cors';
import type { Endpoint } from '@school/shared';
import type { Middleware } from 'koa';

/** Headers a browser client must be able to read: the bearer challenge and the rate-limit delay. */
const EXPOSED = ['WWW-Authenticate', 'Retry-After'];

/** Removes every CORS header oidc-provider put on an answer. */
const closeCors: Middleware = async function closeCors(ctx, next) {
  await next();
  for (const name of Object.keys(ctx.response.headers)) {
    if (name.toLowerCase().startsWith('access-control-')) ctx.remove(name);
  }
};

/**
 * The step of a row: CORS without credentials where it has `cors` (an error answer keeps the
 * headers: they travel on the error to the error guard), none anywhere else. It answers CORS
 * preflights of open rows itself.
 */
export function cors(row: Pick<Endpoint, 'cors' | 'methods'>): Middleware {
  if (!row.cors) return closeCors;
  const open = koaCors({
    origin: '*',
    credentials: false,
    allowMethods: [...row.methods],
    exposeHeaders: EXPOSED,
    maxAge: 600,
  });
  return async function openCors(ctx, next) {
    await open(ctx, next);
  };
}
