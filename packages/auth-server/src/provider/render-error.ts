/**
 * oidc-provider calls `renderError` for errors at the authorization endpoint that cannot be sent back
 * to the client (unknown client, unregistered redirect URI), and for any endpoint whose request
 * `Accept`s HTML first. JSON endpoints must answer JSON whatever the `Accept` header says (RFC 6749
 * §5.2): only the browser-facing routes get a page (pages/error-page.ts); the JSON is the
 * error table's shape (`@school/shared` oauth-errors.ts), with oidc-provider's own code and status.
 */
import { OAuthError } from '@school/shared';
import type { KoaContextWithOIDC, ErrorOut } from 'oidc-provider';
import { isBrowserRoute, renderProviderErrorPage } from '../pages/error-page.js';

/** `renderError`: JSON in the RFC 6749 shape for API routes, a plain page for browser routes. */
export function renderError(ctx: KoaContextWithOIDC, out: ErrorOut): void {
  ctx.set('Cache-Control', 'no-store');
  if (isBrowserRoute(ctx.oidc?.route)) return renderProviderErrorPage(ctx, out);
  ctx.type = 'application/json';
  ctx.body = new OAuthError(ctx.status, out.error, out.error_description ?? out.error).toBody();
}
