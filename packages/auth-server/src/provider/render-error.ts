/**
 * oidc-provider calls `renderError` for errors at the authorization endpoint that cannot be sent back
 * to the client (unknown client, unregistered redirect URI), and for any endpoint whose request
 * `Accept`s HTML first. JSON endpoints must answer JSON whatever the `Accept` header says (RFC 6749
 * §5.2), so only the browser-facing routes get a page.
 */
import type { KoaContextWithOIDC, ErrorOut } from 'oidc-provider';
import { errorPage } from '../interactions/views.js';
import { pageCsp } from '../interactions/html.js';

const BROWSER_ROUTES = new Set([
  'authorization',
  'resume',
  'end_session',
  'end_session_confirm',
  'code_verification',
]);

/** Explains the error in words a school admin can act on. */
function explain(out: ErrorOut): string {
  switch (out.error) {
    case 'invalid_client':
      return 'The app that sent you here is not registered with this school. Go back to the app and try connecting again.';
    case 'invalid_redirect_uri':
    case 'invalid_request':
      return 'The app that sent you here made a request this school cannot accept. It has not been sent back to the app. Go back to the app and try again.';
    default:
      return 'Something went wrong while connecting the app. Go back to the app and try again.';
  }
}

/** `renderError`: JSON in the RFC 6749 shape for API routes, a plain page for browser routes. */
export async function renderError(ctx: KoaContextWithOIDC, out: ErrorOut): Promise<void> {
  ctx.set('Cache-Control', 'no-store');
  const route = ctx.oidc?.route;
  if (!route || !BROWSER_ROUTES.has(route)) {
    ctx.type = 'application/json';
    ctx.body = { error: out.error, error_description: out.error_description };
    return;
  }
  ctx.set('Content-Security-Policy', pageCsp());
  ctx.type = 'text/html';
  ctx.body = errorPage({ title: 'This app could not connect', message: explain(out), code: out.error });
}
