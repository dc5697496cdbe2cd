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
 *
 * The two values are fixed on the app's request prototype (`app.request`, from which Koa creates
 * every request's `ctx.request`), once, rather than on each request by a middleware step: the same
 * values for every request, read by everything mounted in this app (oidc-provider's routes run on
 * this app's context), at no cost per request.
 */
import type Koa from 'koa';

/** Makes BASE_URL the origin of every request `app` serves. */
export function pinPublicOrigin(app: Koa, baseUrl: string): void {
  const url = new URL(baseUrl);
  Object.defineProperties(app.request, {
    protocol: { value: url.protocol.slice(0, -1), configurable: true },
    host: { value: url.host, configurable: true },
  });
}
