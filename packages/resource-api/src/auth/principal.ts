/**
 * Who is calling: an anonymous visitor (no Authorization header) or the holder of a good token. Kept
 * on `res.locals` by the bearer middleware and read by everything after it.
 */
import type { Response } from 'express';
import type { TokenPrincipal } from './token-verifier.js';

/** A request without an Authorization header: served as anonymous, never challenged. */
export interface AnonymousPrincipal {
  kind: 'anonymous';
}

/** The caller of a request. */
export type Principal = AnonymousPrincipal | TokenPrincipal;

/** Which representation an operation answers with. */
export type View = 'full' | 'public';

const ANONYMOUS: AnonymousPrincipal = { kind: 'anonymous' };

/** The caller, as the bearer middleware recorded it (anonymous if it has not run). */
export function principalOf(res: Response): Principal {
  return (res.locals.principal as Principal | undefined) ?? ANONYMOUS;
}

/** Records the caller. */
export function setPrincipal(res: Response, principal: Principal): void {
  res.locals.principal = principal;
}

export { ANONYMOUS };
