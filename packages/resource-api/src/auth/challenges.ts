/**
 * The headers docs/decisions.md puts on auth answers, in one place:
 * - 401 `invalid_token` and 403 `insufficient_scope`: `WWW-Authenticate: Bearer error=..., ...,
 *   resource_metadata="<PRM URL>"` (RFC 6750 §3, RFC 9728 §5.1), both with `scope` naming every scope
 *   the operation needs (the MCP authorization spec of 2026-07-28 asks for it on the 401 too, so a
 *   client asks for the right scopes in one round; a 401 outside any operation has none); the 403's
 *   `error_description`, in the header and the body alike, says that a refresh cannot add the scope
 *   and a new authorization request for the union of the held scopes and the needed one can
 *   (lib/errors.ts);
 * - anonymous 403 `access_denied`: no challenge at all (anonymous is not an error), only
 *   `Link: <PRM URL>; rel="oauth-protected-resource"` so a client can discover how to get a token;
 * - a request with the DPoP scheme, or a DPoP-bound token sent as Bearer (RFC 9449 §7.1, §7.2): the
 *   same, challenged with the `DPoP` scheme and its `algs`; a bad proof is 401 `invalid_dpop_proof`.
 *   No `use_dpop_nonce` ever: this server issues no nonces (docs/decisions.md).
 */
import { DPOP_SIGNING_ALGS } from '@school/shared';
import type { TokenScheme } from './authorization-header.js';
import {
  AccessDeniedError,
  insufficientScopeText,
  InsufficientScopeError,
  InvalidDpopProofError,
  InvalidTokenError,
} from '../lib/errors.js';

const ALGS = `algs="${DPOP_SIGNING_ALGS.join(' ')}"`;

/**
 * Makes a value safe inside an auth-param quoted string (RFC 9110 §11.2): printable ASCII only (a
 * header value Node refuses would turn the answer into a 500), no quotes or backslashes.
 */
function quoted(value: string): string {
  const safe = [...value].filter(
    (c) => c !== '"' && c !== '\\' && c.charCodeAt(0) >= 32 && c.charCodeAt(0) < 127,
  );
  return `"${safe.join('')}"`;
}

/** Builds the challenges for one deployment. */
export function challenges(prmUrl: string) {
  return {
    invalidToken(description: string, scope?: string, scheme: TokenScheme = 'Bearer'): InvalidTokenError {
      const scopeParam = scope ? `, scope=${quoted(scope)}` : '';
      const algs = scheme === 'DPoP' ? `, ${ALGS}` : '';
      return new InvalidTokenError(description, {
        'WWW-Authenticate': `${scheme} error="invalid_token", error_description=${quoted(description)}${scopeParam}, resource_metadata=${quoted(prmUrl)}${algs}`,
      });
    },
    invalidDpopProof(description: string, scope?: string): InvalidDpopProofError {
      const scopeParam = scope ? `, scope=${quoted(scope)}` : '';
      return new InvalidDpopProofError(description, {
        'WWW-Authenticate': `DPoP error="invalid_dpop_proof", error_description=${quoted(description)}${scopeParam}, resource_metadata=${quoted(prmUrl)}, ${ALGS}`,
      });
    },
    insufficientScope(
      scope: string,
      held: Iterable<string>,
      scheme: TokenScheme = 'Bearer',
    ): InsufficientScopeError {
      const algs = scheme === 'DPoP' ? `, ${ALGS}` : '';
      const description = insufficientScopeText(scope, held);
      return new InsufficientScopeError(scope, description, {
        'WWW-Authenticate': `${scheme} error="insufficient_scope", scope=${quoted(scope)}, resource_metadata=${quoted(prmUrl)}, error_description=${quoted(description)}${algs}`,
      });
    },
    accessDenied(scope: string): AccessDeniedError {
      return new AccessDeniedError(scope, { Link: `<${prmUrl}>; rel="oauth-protected-resource"` });
    },
  };
}

/** The challenge builders of one deployment. */
export type Challenges = ReturnType<typeof challenges>;
