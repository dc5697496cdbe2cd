/**
 * CSRF tokens for the login and consent forms, and the account pages' forms (bound to the login
 * session's uid instead, account-pages/signed-in.ts).
 *
 * The token is an HMAC of the interaction's uid under a server secret. The uid is random, single-use,
 * short-lived and bound to the browser by oidc-provider's `_interaction` cookie (HttpOnly,
 * SameSite=Lax, path-scoped), so a form can only be submitted by the page that was served to that
 * browser for that interaction. Stateless: nothing to store, nothing to clean up. A submission whose
 * `Origin` header names another site is refused as well.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Issues and checks CSRF tokens bound to an interaction uid. */
export class CsrfTokens {
  constructor(private readonly secret: string) {}

  /** The token to put in the forms of interaction `uid`. */
  issue(uid: string): string {
    return createHmac('sha256', this.secret).update(`csrf:${uid}`).digest('base64url');
  }

  /** True when `token` was issued for `uid`. */
  verify(uid: string, token: unknown): boolean {
    if (typeof token !== 'string') return false;
    const expected = Buffer.from(this.issue(uid));
    const given = Buffer.from(token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}

/**
 * True when a form's `Origin` header names another site. `Origin: null` (privacy settings, some
 * redirects) and no header say nothing: the CSRF token still decides.
 */
export function isForeignOrigin(origin: string, ownOrigin: string): boolean {
  return origin !== '' && origin !== 'null' && origin !== ownOrigin;
}
