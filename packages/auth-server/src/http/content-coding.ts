/**
 * Refuses a request body sent with a content coding (`Content-Encoding: gzip`, `br`, anything but
 * `identity`) with 415 and `Accept-Encoding: identity` (RFC 9110 §15.5.16, §12.5.3), on every route.
 *
 * Why refuse rather than decode: no OAuth client or browser compresses a form or a registration, and
 * the two readers here disagree — oidc-provider and the rate limiter read the raw bytes whatever the
 * header says (a gzip body is silently read as garbage), while the login pages' parser inflates it
 * (a bomb costs CPU; a body that is not gzip used to end as a 500). One rule
 * before both is simpler and leaves nothing to decompress.
 */
import { UnsupportedMediaTypeError } from '@school/shared';
import type { Middleware } from 'koa';

/** True when the request carries a body (a non-zero Content-Length, or any Transfer-Encoding). */
function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** The codings a `Content-Encoding` value lists, lower-cased, `identity` left out. */
export function contentCodings(value: string): string[] {
  return value
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
}

/** The middleware; mount it before anything reads a body (the rate limiter, the routers). */
export const refuseContentCodings: Middleware = async (ctx, next) => {
  const declared = ctx.get('content-encoding');
  if (!declared || !hasBody(ctx.req.headers) || contentCodings(declared).length === 0) {
    await next();
    return;
  }
  throw new UnsupportedMediaTypeError(
    'request bodies must not be content-encoded (send them with no Content-Encoding)',
    { 'Accept-Encoding': 'identity' },
  );
};
