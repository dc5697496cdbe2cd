/**
 * The second step: may this caller run this operation, and which view do they get?
 * Scope checks are exact (`<area>:read` for reads, `<area>:write` for writes; docs/decisions.md).
 *
 * | caller                     | operation has a public view | no public view             |
 * |----------------------------|-----------------------------|----------------------------|
 * | anonymous                  | public view                 | 403 access_denied + Link   |
 * | token with the scope       | full view                   | full view                  |
 * | token without the scope    | 403 insufficient_scope      | 403 insufficient_scope     |
 *
 * A token lacking the scope is refused even where anonymous callers get the public view: the client
 * asked as someone, and the challenge tells it which scope to ask for.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Challenges } from './challenges.js';
import type { View } from '../lib/caller.js';
import { principalOf } from './principal.js';

/** Records the view an operation answers with. */
export function viewOf(res: Response): View {
  return (res.locals.view as View | undefined) ?? 'public';
}

/** The scope the operation being served needs, named by {@link needsScope}; undefined outside one. */
export function requiredScope(res: Response): string | undefined {
  return res.locals.requiredScope as string | undefined;
}

/** The first step of an operation: names the scope it needs, for every challenge after it. */
export function needsScope(scope: string): RequestHandler {
  return function nameScope(_req: Request, res: Response, next: NextFunction) {
    res.locals.requiredScope = scope;
    next();
  };
}

/** Builds the check for one operation. */
export function requireScope(scope: string, hasPublicView: boolean, challenge: Challenges): RequestHandler {
  return function checkScope(_req: Request, res: Response, next: NextFunction) {
    const principal = principalOf(res);
    if (principal.kind === 'anonymous') {
      if (!hasPublicView) return next(challenge.accessDenied(scope));
      res.locals.view = 'public';
      return next();
    }
    if (!principal.scopes.has(scope))
      return next(challenge.insufficientScope(scope, principal.scopes, principal.jkt ? 'DPoP' : 'Bearer'));
    res.locals.view = 'full';
    return next();
  };
}
