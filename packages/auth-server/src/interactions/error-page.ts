/**
 * The error pages: what the browser is shown when something cannot be sent back to the app.
 *
 * - The interaction routes' own refusals: {@link InteractionGone} (an expired, replayed or foreign
 *   interaction: 400) and {@link FormRejected} (a form without its CSRF token or from another site:
 *   403), turned into pages by the {@link pageErrors} step.
 * - oidc-provider's `renderError` for the browser-facing routes (provider/render-error.ts): errors at
 *   the authorization endpoint that cannot be sent back to the client (unknown client, unregistered
 *   redirect URI). JSON endpoints must answer JSON whatever the `Accept` header says (RFC 6749 §5.2),
 *   so only these routes get a page.
 */
import type { Context, Next } from 'koa';
import type { ErrorOut, KoaContextWithOIDC } from 'oidc-provider';
import { pageCsp, sendPage } from './html.js';
import { errorPage } from './views.js';

/** The interaction is expired, used, or not this browser's: the user starts again. */
export class InteractionGone extends Error {}

/** The form was not sent from this interaction's page. */
export class FormRejected extends Error {}

/**
 * The first step of every interaction route: no caching, and {@link InteractionGone} and
 * {@link FormRejected} from the steps after it become pages.
 */
export async function pageErrors(ctx: Context, next: Next): Promise<void> {
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Pragma', 'no-cache');
  try {
    await next();
  } catch (err) {
    if (err instanceof FormRejected) {
      sendPage(
        ctx,
        403,
        errorPage({
          title: 'This form could not be verified',
          message:
            'It was not sent from this sign-in page. Go back to the app you were connecting and start again.',
          code: 'csrf_check_failed',
        }),
      );
      return;
    }
    if (!(err instanceof InteractionGone)) throw err;
    sendPage(
      ctx,
      400,
      errorPage({
        title: 'This sign-in page has expired',
        message:
          'It was already used, or it was open for too long. Go back to the app you were connecting and start again.',
        code: 'interaction_expired',
      }),
    );
  }
}

/** oidc-provider's routes a browser is sent to, which answer errors with a page. */
const BROWSER_ROUTES = new Set([
  'authorization',
  'resume',
  'end_session',
  'end_session_confirm',
  'code_verification',
]);

/** True when oidc-provider's `route` answers errors with a page. */
export function isBrowserRoute(route: string | undefined): boolean {
  return route !== undefined && BROWSER_ROUTES.has(route);
}

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

/** The page for an error oidc-provider renders on a browser route (the status is oidc-provider's). */
export function renderErrorPage(ctx: KoaContextWithOIDC, out: ErrorOut): void {
  ctx.set('Content-Security-Policy', pageCsp());
  ctx.type = 'text/html';
  ctx.body = errorPage({ title: 'This app could not connect', message: explain(out), code: out.error });
}
