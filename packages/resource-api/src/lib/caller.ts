/**
 * Who is calling, as an operation's handler sees it: an anonymous visitor (no Authorization header)
 * or the holder of a good token, and which representation the operation answers with. Types only;
 * auth/ decides who the caller is and records it (auth/principal.ts).
 */

/** A request without an Authorization header: served as anonymous, never challenged. */
export interface AnonymousPrincipal {
  kind: 'anonymous';
}

/** The holder of a token the auth server says is active for this API. */
export interface TokenPrincipal {
  kind: 'token';
  /** The account the token acts for (the `sub` claim). */
  sub?: string;
  clientId?: string;
  scopes: ReadonlySet<string>;
  /** Seconds since the epoch. */
  exp?: number;
  /** The thumbprint of the DPoP key the token is bound to (`cnf.jkt`); absent for a bearer token. */
  jkt?: string;
}

/** The caller of a request. */
export type Principal = AnonymousPrincipal | TokenPrincipal;

/** Which representation an operation answers with. */
export type View = 'full' | 'public';
