/**
 * The first step of every API operation: who is calling?
 *
 * - No `Authorization` header: anonymous. Not an error and never challenged (SPEC.md); the operation
 *   decides between its public view and 403 `access_denied`.
 * - A token in the query string (with or without the header): 400 (only the header method is
 *   supported, `bearer_methods_supported: ["header"]`), so a client does not silently get the
 *   anonymous view, and a URL carrying a token is never served.
 * - Any `Authorization` header is a token attempt. It is first read strictly
 *   (`authorization-header.ts`, RFC 6750 b64token): a malformed one is 401 `invalid_token` at once.
 *   A well-formed one is checked by passport-http-bearer with {@link TokenVerifier}: a bad token is
 *   401 `invalid_token` with the challenge; an unreachable auth server is 503.
 *
 * Each app builds its own `Passport` instance, so two API instances in one process (the revocation
 * test) never share a strategy.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { Passport } from 'passport';
import { Strategy as BearerStrategy } from 'passport-http-bearer';
import { InvalidRequestError, TemporarilyUnavailableError } from '../lib/errors.js';
import type { Logger } from '../logger.js';
import type { Challenges } from './challenges.js';
import { parseAuthorization } from './authorization-header.js';
import { AuthServerUnavailableError } from './introspection-client.js';
import { ANONYMOUS, setPrincipal } from './principal.js';
import type { TokenPrincipal, TokenVerifier } from './token-verifier.js';

const MALFORMED = 'the Authorization header must have the form: Bearer <access token>';

/** Builds the authentication middleware. */
export function bearer(verifier: TokenVerifier, challenge: Challenges, logger: Logger): RequestHandler {
  const passport = new Passport();
  const reasons = new WeakMap<Request, string>();
  passport.use(
    new BearerStrategy(
      { passReqToCallback: true },
      (req: Request, token: string, done: (error: unknown, user?: TokenPrincipal | false) => void) => {
        verifier.verify(token).then(
          (verdict) => {
            if (verdict.ok) return done(null, verdict.principal);
            reasons.set(req, verdict.reason);
            return done(null, false);
          },
          (err: unknown) => done(err),
        );
      },
    ),
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
    if (!parsed.ok) return next(challenge.invalidToken(parsed.reason));
    // passport-http-bearer splits the header on single spaces: hand it the canonical form.
    req.headers.authorization = `Bearer ${parsed.token}`;
    passport.authenticate('bearer', { session: false }, (err: unknown, user: TokenPrincipal | false) => {
      if (err) {
        if (err instanceof AuthServerUnavailableError) {
          logger.warn({ err: err.message }, 'introspection failed');
          return next(new TemporarilyUnavailableError());
        }
        return next(err);
      }
      if (!user) return next(challenge.invalidToken(reasons.get(req) ?? MALFORMED));
      setPrincipal(res, user);
      res.set('Cache-Control', 'no-store');
      return next();
    })(req, res, next);
  };
}
