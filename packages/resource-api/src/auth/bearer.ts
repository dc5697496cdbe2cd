/**
 * The first step of every API operation: who is calling?
 *
 * - No `Authorization` header: anonymous. Not an error and never challenged (docs/contract.md); the operation
 *   decides between its public view and 403 `access_denied`.
 * - A token in the query string (with or without the header): 400 (only the header method is
 *   supported, `bearer_methods_supported: ["header"]`), so a client does not silently get the
 *   anonymous view, and a URL carrying a token is never served.
 * - Any `Authorization` header is a token attempt. It is first read strictly
 *   (`authorization-header.ts`, RFC 6750 b64token, scheme Bearer or DPoP): a malformed one is 401
 *   `invalid_token` at once.
 *   A well-formed one is checked by passport-http-bearer with {@link TokenVerifier}: a bad token is
 *   401 `invalid_token` with the challenge (a token the auth server refuses to look at included); an
 *   unreachable auth server, or one refusing this API's own credentials (logged as an error), is 503.
 * - A good token bound to a DPoP key (`cnf.jkt`, RFC 9449) must come with the DPoP scheme and one
 *   `DPoP` proof header that dpop-proof.ts accepts for this request (its URL built from BASE_URL):
 *   sent as Bearer it is 401 `invalid_token` (a stolen bound token is useless without its key), a bad
 *   or missing proof 401 `invalid_dpop_proof`, both challenged with `DPoP`. A bearer token sent with
 *   the DPoP scheme is 401 `invalid_token`. A bearer token sent as Bearer is checked exactly as it
 *   was before DPoP: no proof is read and no Redis command is sent.
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
import { AUTHORIZATION_FORM, parseAuthorization, type TokenScheme } from './authorization-header.js';
import { checkDpopProof, type ProofFirstSeen } from './dpop-proof.js';
import { AuthServerUnavailableError, IntrospectionCredentialsError } from './introspection-client.js';
import { ANONYMOUS, setPrincipal } from './principal.js';
import { requiredScope } from './require-scope.js';
import type { TokenPrincipal } from '../lib/caller.js';
import type { TokenVerifier } from './token-verifier.js';

/** What checking DPoP proofs needs. */
export interface DpopChecks {
  /** The public origin (BASE_URL): a proof's `htu` is this plus the request's path. */
  origin: string;
  /** The replay check shared by every instance (dpop-replay.ts). */
  seen: ProofFirstSeen;
}

/** Builds the authentication middleware. */
export function bearer(
  verifier: TokenVerifier,
  challenge: Challenges,
  logger: Logger,
  dpop: DpopChecks,
): RequestHandler {
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
    if (Object.hasOwn(req.query, 'access_token')) {
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
    const { scheme, token } = parsed;
    // passport-http-bearer splits the header on single spaces: hand it the canonical form.
    req.headers.authorization = `Bearer ${token}`;
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
        return next(
          challenge.invalidToken(reasons.get(req) ?? AUTHORIZATION_FORM, requiredScope(res), scheme),
        );
      },
      success(user) {
        const principal = user as TokenPrincipal;
        const accept = () => {
          setPrincipal(res, principal);
          res.setHeader('Cache-Control', 'no-store');
          return next();
        };
        if (principal.jkt === undefined && scheme === 'Bearer') return accept();
        const refusal = schemeRefusal(principal, scheme);
        if (refusal) return next(challenge.invalidToken(refusal, requiredScope(res), 'DPoP'));
        const proofs = req.headersDistinct.dpop ?? [];
        if (proofs.length !== 1) {
          const reason = proofs.length
            ? 'send one DPoP proof, not several'
            : 'a DPoP-bound token needs a DPoP proof header';
          return next(challenge.invalidDpopProof(reason, requiredScope(res)));
        }
        const expected = {
          method: req.method,
          url: new URL(req.originalUrl.split('?')[0]!, dpop.origin).href,
          accessToken: token,
          jkt: principal.jkt!,
          seen: dpop.seen,
        };
        checkDpopProof(proofs[0]!, expected).then(
          (checked) =>
            checked.ok ? accept() : next(challenge.invalidDpopProof(checked.reason, requiredScope(res))),
          (err: unknown) => {
            logger.warn({ err: (err as Error).message }, 'DPoP proof replay check failed');
            next(new TemporarilyUnavailableError('the DPoP proof cannot be checked now; try again shortly'));
          },
        );
      },
    });
  };
}

/** Why a good token cannot be used with the scheme it came with, if it cannot (RFC 9449 §7). */
function schemeRefusal(principal: TokenPrincipal, scheme: TokenScheme): string | undefined {
  if (principal.jkt !== undefined && scheme === 'Bearer')
    return 'this access token is bound to a DPoP key: send it with the DPoP scheme and a DPoP proof';
  if (principal.jkt === undefined && scheme === 'DPoP')
    return 'this access token is not bound to a DPoP key: send it with the Bearer scheme';
  return undefined;
}

/** A Passport strategy, as far as running one goes. */
interface PassportStrategy {
  authenticate(req: Request, options?: object): void;
}

/** What a Passport strategy calls when it has decided (passport-strategy's contract). */
interface StrategyOutcomes {
  success: (user: unknown) => void;
  fail: () => void;
  error: (err: unknown) => void;
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
