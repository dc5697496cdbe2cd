/**
 * Who is calling (lib/caller.ts), kept on `res.locals` by the bearer middleware and read by
 * everything after it.
 */
import type { Response } from 'express';
import type { AnonymousPrincipal, Principal } from '../lib/caller.js';

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
