/**
 * Telling the auth server which scopes an app really uses (Connected apps shows them beside what was
 * granted, and offers to drop the rest). After an operation's scope check passes, the step this file
 * builds notes (app, account, scope) in an LRU: at most once a minute for each, it hands the token and
 * scope to the introspection client's `noteUse` (an introspection request with `used_scope`), which
 * nobody waits for. The cost on every other request is one Map lookup; the auth server owns the
 * storage, and the API speaks to it only in RFC 7662's terms.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { LRUCache } from 'lru-cache';
import { parseAuthorization } from './authorization-header.js';
import { principalOf } from './principal.js';

/** What reports a use: the introspection client. */
export interface ScopeUseReporter {
  noteUse(token: string, scope: string, requestId?: string): void;
}

/** How often one (app, account, scope) is reported at most, seconds. */
export const SCOPE_USE_RESOLUTION_SECONDS = 60;

/** Builds the per-process memory of what was reported lately, and the step for one operation's scope. */
export function scopeUseNotes(
  reporter: ScopeUseReporter,
  { maxTracked = 50_000 }: { maxTracked?: number } = {},
): (scope: string) => RequestHandler {
  const reported = new LRUCache<string, true>({ max: maxTracked, ttl: SCOPE_USE_RESOLUTION_SECONDS * 1000 });
  return (scope) =>
    function noteScopeUse(req: Request, res: Response, next: NextFunction) {
      const principal = principalOf(res);
      if (principal.kind === 'token' && res.locals.view === 'full') {
        const key = `${principal.clientId ?? ''}\u0000${principal.sub ?? ''}\u0000${scope}`;
        if (!reported.has(key)) {
          reported.set(key, true);
          const parsed = parseAuthorization(req.headers.authorization ?? '');
          if (parsed.ok) reporter.noteUse(parsed.token, scope, res.locals.requestId as string | undefined);
        }
      }
      next();
    };
}
