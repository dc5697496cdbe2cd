/**
 * The first step of every API operation: who is calling?
 *
 * - No `Authorization` header: anonymous. Not an error and never challenged (docs/contract.md); the operation
 *   decides between its public view and 403 `access_denied`.
 * - A token in the query string (with or without the header): 400 (only the header method is
 *   supported, `bearer_methods_supported: ["header"]`), so a client does not silently get the
 *   anonymous view, and a URL carrying a token is never served.
 * - Any `Authorization` header is a token attempt. It is first read strictly
 *   (`authorization-header.ts`, RFC 6750 b64token): a malformed one is 401 `invalid_token` at once.
 *   A well-formed one is checked by passport-http-bearer with {@link TokenVerifier}: a bad token is
 *   401 `invalid_token` with the challenge (a token the auth server refuses to look at included); an
 *   unreachable auth server, or one refusing this API's own credentials (logged as an error), is 503.
 *
 * The strategy is passport-http-bearer's, run the way Passport's `authenticate` middleware runs a
 * strategy (an object made from it, given `success`, `fail` and `error` for this one request), but
 * without that middleware: it also adds seven session helpers to every request (`req.login`,
 * `req.logout`, `req.isAuthenticated`, ...), which this session-less API never calls, and those
 * additions alone changed the request object's shape on every request: ~40 µs per request (a third
 * of the whole pipeline around a cached answer), measured against the same server without them.
 * Each app builds its own strategy, so two API instances in one process (the revocation test) never
 * share one.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { Strategy as BearerStrategy } from 'passport-http-bearer';
import { InvalidRequestError, TemporarilyUnavailableError } from '../lib/errors.js';
import type { Logger } from '../logger.js';
import type { Challenges } from './challenges.js';
import { parseAuthorization } from './authorization-header.js';
import { AuthServerUnavailableError, IntrospectionCredentialsError } from './introspection-client.js';
import { ANONYMOUS, setPrincipal } from './principal.js';
import { requiredScope } from './require-scope.js';
import type { TokenPrincipal, TokenVerifier } from './token-verifier.js';

const MALFORMED = 'the Authorization header must have the form: Bearer <access token>';

/** Builds the authentication middleware. */
export function bearer(verifier: TokenVerifier, challenge: Challenges, logger: Logger): RequestHandler {
  const reasons = new WeakMap<Request, string>();
  const strategy = new BearerStrategy(
    { passReqToCallback: true },
    (req: Request, token: string, done: (error: unknown, user?: TokenPrincipal | false) => void) => {
      verifier.verify(token, req.res?.locals.requestId as string | undefined).then(
        (verdict) => {
          if (verdict.ok) return done(null, verdict.principal);
          reasons.set(req, verdict.reason);
          return done(null, false);
        },
        (err: unknown) => done(err),
      );
    },
  );

  return function authenticate(req: Request, res: Response, next: NextFunction) {
    if (Object.hasOwn(req.query as object, 'access_token')) {
      return next(
        new InvalidRequestError('send the access token in the Authorization header, not the query string'),
      );
    }
    const header = req.headers.authorization;
    if (header === undefined) {
      setPrincipal(res, ANONYMOUS);
      return next();
    }
    const parsed = parseAuthorization(header);
    if (!parsed.ok) return next(challenge.invalidToken(parsed.reason, requiredScope(res)));
    // passport-http-bearer splits the header on single spaces: hand it the canonical form.
    req.headers.authorization = `Bearer ${parsed.token}`;
    const unreachable = 'the authorization server cannot be reached; try again shortly';
    runStrategy(strategy, req, {
      error(err) {
        if (err instanceof IntrospectionCredentialsError) {
          logger.error({ err: err.message }, 'introspection credentials refused: every token check fails');
          return next(new TemporarilyUnavailableError(unreachable));
        }
        if (err instanceof AuthServerUnavailableError) {
          logger.warn({ err: err.message }, 'introspection failed');
          return next(new TemporarilyUnavailableError(unreachable));
        }
        return next(err);
      },
      fail() {
        return next(challenge.invalidToken(reasons.get(req) ?? MALFORMED, requiredScope(res)));
      },
      success(user) {
        setPrincipal(res, user as TokenPrincipal);
        res.setHeader('Cache-Control', 'no-store');
        return next();
      },
    });
  };
}

/** A Passport strategy, as far as running one goes. */
interface PassportStrategy {
  authenticate(req: Request, options?: object): void;
}

/** What a Passport strategy calls when it has decided (passport-strategy's contract). */
interface StrategyOutcomes {
  success(user: unknown): void;
  fail(): void;
  error(err: unknown): void;
}

/**
 * Runs one Passport strategy on one request: an object made from the strategy, with the outcomes
 * the strategy calls (a redirect or a pass cannot come from the bearer strategy; both fail).
 */
function runStrategy(strategy: PassportStrategy, req: Request, outcomes: StrategyOutcomes): void {
  const attempt = Object.create(strategy) as PassportStrategy &
    StrategyOutcomes & { redirect(): void; pass(): void };
  attempt.success = outcomes.success;
  attempt.fail = outcomes.fail;
  attempt.error = outcomes.error;
  attempt.redirect = outcomes.fail;
  attempt.pass = outcomes.fail;
  attempt.authenticate(req, { session: false });
}
