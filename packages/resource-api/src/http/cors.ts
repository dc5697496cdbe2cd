/**
 * CORS for browser-based clients: a browser MCP client (the MCP Inspector
 * runs in a page) must be able to read the protected-resource metadata, `/openapi.json` and
 * `/auth.md`, and call every `/api/v1` operation with its bearer token. Every origin is allowed
 * (`Access-Control-Allow-Origin: *`) and credentials never are: the API authenticates by the
 * `Authorization` header alone, never by cookies, so a page on another origin can do nothing its
 * token does not already allow. `WWW-Authenticate` is exposed, so a browser client can read the
 * `resource_metadata` hint of a 401 (or the `Link` of an anonymous 403) and start discovery.
 *
 * Preflights (OPTIONS with `Access-Control-Request-Method`) carry no credentials: they are answered
 * 204 with the methods of that path, before authentication (see operations-router.ts and docs.ts).
 */
import { DISCOVERY_PATHS } from '@school/shared';
import corsMiddleware from 'cors';
import type { RequestHandler } from 'express';

/** The response headers a browser client may read. */
const EXPOSED = ['WWW-Authenticate', 'Link', 'Retry-After', 'Location'];

/** The paths with CORS, as Express mount points. */
export const CORS_MOUNTS = ['/api/v1', DISCOVERY_PATHS.protectedResource, '/openapi.json', '/auth.md'];

/**
 * CORS headers without credentials on every answer of a path; a preflight continues to the path's
 * own OPTIONS route, which names its methods ({@link preflight}), or to the 404.
 */
export const crossOrigin: RequestHandler = corsMiddleware({
  origin: '*',
  credentials: false,
  exposedHeaders: EXPOSED,
  maxAge: 600,
  preflightContinue: true,
});

/**
 * The answer to a CORS preflight (OPTIONS with `Access-Control-Request-Method`) for a path allowing
 * `methods`: 204 with those methods. Any other OPTIONS goes on to the path's 405.
 */
export function preflight(methods: readonly string[]): RequestHandler {
  const answer = corsMiddleware({
    origin: '*',
    credentials: false,
    methods: [...methods],
    exposedHeaders: EXPOSED,
    maxAge: 600,
  });
  return (req, res, next) => (req.get('access-control-request-method') ? answer(req, res, next) : next());
}
