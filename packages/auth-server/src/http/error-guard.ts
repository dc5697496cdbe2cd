/**
 * The auth server's one error middleware: every error its own code throws or a library raises is
 * answered from the error table (`@school/shared` oauth-errors.ts) — the RFC 6749 §5.2 JSON body with
 * the row's status and headers, or the error page on the browser routes (`/oauth/`,
 * pages/error-page.ts) — and never with a stack trace. oidc-provider answers its own errors
 * (provider/render-error.ts); this is for everything around it.
 *
 * What reaches it, besides the table's own errors:
 * - a library's refusal of the request itself: the body parser's 413 for a form
 *   over its limit, its 415 for a content coding or charset it cannot read, a 400 for a body that does
 *   not decompress. These carry an HTTP status (http-errors' `status`, with `expose` set) or a zlib
 *   code and are the client's fault: the same 4xx row, never the library's text. They used to be 500s;
 *   an attacker could fill the error log and the 5xx alerts with a one-line request;
 * - an unreachable Redis or MongoDB (`@school/shared` storage-outage.ts): 503 with `Retry-After`;
 * - anything else: a bug, 500 `server_error` with a generic text and the request id, details logged.
 */
import {
  InvalidRequestError,
  OAuthError,
  RequestTooLargeError,
  ServerError,
  TemporarilyUnavailableError,
  UnsupportedMediaTypeError,
  isStorageOutage,
} from '@school/shared';
import type { Middleware } from 'koa';
import { renderErrorPage } from '../pages/error-page.js';
import type { Logger } from '../logger.js';
import { StorageUnavailable } from '../provider/storage-outage.js';

/** oidc-provider's own body limit (its forms and JSON), for a 413 that does not name one. */
const PROVIDER_BODY_LIMIT = 56 * 1024;

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

/** The row of the table for a library's 4xx refusal. */
function refusalOf(err: unknown, status: number): OAuthError {
  if (status === 413)
    return new RequestTooLargeError((err as { limit?: number }).limit ?? PROVIDER_BODY_LIMIT);
  if (status === 415)
    return new UnsupportedMediaTypeError(
      'the request body is in a content coding or charset this endpoint does not read',
    );
  const refusal = new InvalidRequestError('the request body could not be read');
  return status === 400 ? refusal : new OAuthError(status, refusal.code, refusal.description);
}

/** The error table's answer for anything thrown, logged as what it is. */
function answerFor(err: unknown, requestId: string, logger: Logger, where: object): OAuthError {
  if (err instanceof OAuthError) return err;
  const status = clientErrorStatus(err);
  if (status !== undefined) {
    logger.info({ ...where, status, reason: (err as Error).message }, 'refused an unreadable request');
    return refusalOf(err, status);
  }
  if (err instanceof StorageUnavailable || isStorageOutage(err)) {
    logger.error({ err, ...where }, 'storage unavailable');
    return new TemporarilyUnavailableError(
      'the authorization server cannot reach its storage; try again shortly',
    );
  }
  logger.error({ err, ...where }, 'unhandled error');
  return new ServerError(requestId);
}

/** The middleware; mount it first after the request log, the security headers and CORS. */
export function errorGuard(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const requestId = String(ctx.state.requestId ?? '');
      const where = { requestId, path: ctx.path, method: ctx.method };
      const error = answerFor(err, requestId, logger, where);
      // The request's log line (http/request-log.ts) names the cause, under the id a page shows.
      ctx.state.refusal = error.toBody();
      ctx.status = error.status;
      ctx.set({ 'Cache-Control': 'no-store', ...error.headers });
      if (ctx.path.startsWith('/oauth/')) renderErrorPage(ctx, error);
      else ctx.body = error.toBody();
    }
  };
}
