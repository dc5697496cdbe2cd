/**
 * Pins every request's origin to `BASE_URL`, before anything reads it.
 *
 * oidc-provider builds every URL it publishes or redirects to (the discovery documents' endpoints,
 * the interaction and resume redirects) from the Koa request's origin, and Koa takes that from the
 * `Host` header, or with `app.proxy` from `X-Forwarded-Host` and `X-Forwarded-Proto`: values the
 * client chooses. `Host: evil.example` used to rewrite every endpoint in the metadata. Here the
 * request's `protocol` and `host` become BASE_URL's, whatever the headers say, so every URL derived
 * from them (`origin`, `href`, `secure` and so the `Secure` cookie flag) is the configured one. The
 * headers themselves are left as sent; nothing reads them any more.
 */
import type { Middleware } from 'koa';

/** Koa middleware making BASE_URL the origin of every request. */
export function publicOrigin(baseUrl: string): Middleware {
  const url = new URL(baseUrl);
  const pinned = {
    protocol: { value: url.protocol.slice(0, -1), configurable: true },
    host: { value: url.host, configurable: true },
  };
  return async (ctx, next) => {
    Object.defineProperties(ctx.request, pinned);
    return next();
  };
}
