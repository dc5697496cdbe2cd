/**
 * oidc-provider calls `renderError` for errors at the authorization endpoint that cannot be sent back
 * to the client (unknown client, unregistered redirect URI), and for any endpoint whose request
 * `Accept`s HTML first. JSON endpoints must answer JSON whatever the `Accept` header says (RFC 6749
 * §5.2): only the browser-facing routes get a page (pages/error-page.ts); the JSON is the
 * error table's shape (`@school/shared` oauth-errors.ts), with oidc-provider's own code and status.
 * Either way the request's log line says why (http/request-log.ts): oidc-provider's detail, which
 * the answer leaves out (an unknown client_id, a redirect_uri that matches none registered).
 */
import { OAuthError } from '@school/shared';
import type { KoaContextWithOIDC, ErrorOut } from 'oidc-provider';
import { isBrowserRoute, renderProviderErrorPage } from '../pages/error-page.js';

/** `renderError`: JSON in the RFC 6749 shape for API routes, a plain page for browser routes. */
export function renderError(ctx: KoaContextWithOIDC, out: ErrorOut, error?: Error): void {
  ctx.set('Cache-Control', 'no-store');
  const detail = (error as { error_detail?: unknown } | undefined)?.error_detail;
  ctx.state.refusal = {
    error: out.error,
    error_description: typeof detail === 'string' ? detail : out.error_description,
  };
  if (isBrowserRoute(ctx.oidc?.route)) return renderProviderErrorPage(ctx, out);
  ctx.type = 'application/json';
  ctx.body = new OAuthError(ctx.status, out.error, out.error_description ?? out.error).toBody();
}
