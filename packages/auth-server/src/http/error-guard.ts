/**
 * The last-resort error guard: whatever escapes a route answers in the right shape, never with a
 * stack trace — the HTML error page on the browser routes (`/oauth/`), the RFC 6749 §5.2 JSON body
 * everywhere else.
 *
 * Three kinds of error reach it:
 * - a refusal of the request itself by a library (issue 13, finding 6): the body parser's 413 for a
 *   form over its limit, its 415 for a content coding or charset it cannot read, a 400 for a body that
 *   does not decompress. These carry an HTTP status (http-errors' `status`, with `expose` set) or a
 *   zlib code, are the client's fault, and keep their 4xx as `invalid_request`. They used to be 500s;
 *   an attacker could fill the error log and the 5xx alerts with a one-line request;
 * - an unreachable Redis or MongoDB: 503 `temporarily_unavailable` with `Retry-After`;
 * - anything else: a bug, 500 `server_error` with a generic text, the details in the log only.
 */
import type { Context, Middleware } from 'koa';
import type { Logger } from '../logger.js';
import { StorageUnavailable } from '../provider/storage-outage.js';
import { pageCsp } from '../interactions/html.js';
import { errorPage } from '../interactions/views.js';

/** True for errors that mean Redis or MongoDB is unreachable (not a bug in this service). */
export function isOutage(err: unknown): boolean {
  if (err instanceof StorageUnavailable) return true;
  const e = err as { name?: string; message?: string };
  return (
    /^Mongo(Server|Network|NotConnected|Topology)/.test(e?.name ?? '') ||
    e?.name === 'MaxRetriesPerRequestError' ||
    /Stream isn't writeable|Connection is closed|ECONNREFUSED/.test(e?.message ?? '')
  );
}

/** What each client-error status says, in RFC 6749 §5.2's character set (never the library's text). */
const CLIENT_ERROR_TEXT: Record<number, string> = {
  400: 'the request body could not be read',
  413: 'the request body is too large',
  415: 'the request body is in a content coding or charset this endpoint does not read',
};

/** The 4xx status of a library's refusal of the request, or undefined when `err` is not one. */
export function clientErrorStatus(err: unknown): number | undefined {
  const e = err as { status?: unknown; expose?: unknown; code?: unknown } | null;
  if (typeof e !== 'object' || e === null) return undefined;
  if (typeof e.status === 'number' && e.status >= 400 && e.status < 500 && e.expose !== false)
    return e.status;
  // zlib's errors (a body declared gzip, deflate or br that is not) carry no status of their own.
  if (typeof e.code === 'string' && /^Z_(DATA|BUF|NEED_DICT)_ERROR$/.test(e.code)) return 400;
  return undefined;
}

function answerPage(ctx: Context, title: string, message: string, code: string): void {
  ctx.type = 'text/html';
  ctx.set('Content-Security-Policy', pageCsp());
  ctx.body = errorPage({ title, message, code });
}

/** The guard middleware; mount it first after the request log and security headers. */
export function errorGuard(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const where = { requestId: ctx.state.requestId, path: ctx.path, method: ctx.method };
      ctx.set('Cache-Control', 'no-store');
      const clientStatus = clientErrorStatus(err);
      if (clientStatus !== undefined) {
        logger.info(
          { ...where, status: clientStatus, reason: (err as Error).message },
          'refused an unreadable request',
        );
        ctx.status = clientStatus;
        const description = CLIENT_ERROR_TEXT[clientStatus] ?? 'the request could not be read';
        if (ctx.path.startsWith('/oauth/'))
          answerPage(
            ctx,
            'This form could not be read',
            'Your browser sent something this page cannot accept. Go back to the app you were connecting and start again.',
            'invalid_request',
          );
        else ctx.body = { error: 'invalid_request', error_description: description };
        return;
      }
      const outage = isOutage(err);
      logger.error({ err, ...where }, outage ? 'storage unavailable' : 'unhandled error');
      ctx.status = outage ? 503 : 500;
      if (outage) ctx.set('Retry-After', '5');
      if (ctx.path.startsWith('/oauth/')) {
        if (outage)
          answerPage(
            ctx,
            'Sign-in is briefly unavailable',
            'The school’s sign-in service cannot reach its storage right now. Please try again in a minute.',
            'temporarily_unavailable',
          );
        else
          answerPage(ctx, 'Something went wrong', 'Please go back to the app and try again.', 'server_error');
      } else {
        ctx.body = outage
          ? {
              error: 'temporarily_unavailable',
              error_description: 'a storage service is unreachable; try again shortly',
            }
          : { error: 'server_error', error_description: 'an unexpected error occurred' };
      }
    }
  };
}
