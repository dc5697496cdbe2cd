/**
 * Who may register, and what a registered client may be (docs/decisions.md).
 *
 * Open registration needs at least one redirect URI and accepts only loopback ones (`http` on
 * 127.0.0.1, [::1] or localhost written canonically, any port at authorization time, RFC 8252 §7.3;
 * the rule is `isLoopbackRedirectUri` in @school/shared); everything else, `https` included, is
 * refused with `invalid_redirect_uri`. Every member is capped (`REGISTRATION_CAPS`, @school/shared), and no string
 * may carry control or bidirectional formatting characters: a name is shown to a person. Fixed HTTPS callbacks belong to
 * registered integrations, which operators create with the `school-auth clients` command, never
 * through open registration.
 *
 * oidc-provider runs `extraClientMetadata.validator` for every declared extra property, before its
 * own validation, and also when it loads any client from storage (then without a request context).
 * The loopback rule is enforced only with a request context, i.e. on open registration; clients the
 * operator stored are loaded as they are.
 */
import {
  ALL_SCOPE_NAMES,
  displayTextProblem,
  isLoopbackHost,
  isLoopbackRedirectUri,
  REGISTRATION_CAPS,
} from '@school/shared';
import { errors } from 'oidc-provider';
import type { KoaContextWithOIDC, ClientMetadata } from 'oidc-provider';
import { CLIENT_ROLE } from '../clients/client-kind.js';

/**
 * Client input quoted for an error text, cut short. The character set RFC 6749 §5.2 allows is
 * enforced once, for every description, by `rfc6749Text` (`@school/shared`) in post-middleware.ts.
 */
const quoted = (uri: string) => `'${uri.slice(0, 200)}'`;

/** Why `uri` is not an acceptable self-registered redirect URI, or `undefined` if it is. */
export function loopbackRedirectProblem(uri: unknown): string | undefined {
  if (typeof uri !== 'string') return 'must be strings';
  if (isLoopbackRedirectUri(uri)) return undefined;
  const url = URL.parse(uri);
  if (!url) return `${quoted(uri)} is not an absolute URI`;
  if (url.protocol !== 'http:' || !isLoopbackHost(url.hostname)) {
    return `${quoted(uri)} is not a loopback URI (http://127.0.0.1:<port>/<path>); fixed HTTPS callbacks need a registered integration`;
  }
  if (url.username || url.password) return `${quoted(uri)} must not carry credentials`;
  if (url.hash || uri.includes('#')) return `${quoted(uri)} must not have a fragment`;
  return `${quoted(uri)} must be written in the canonical form: http://127.0.0.1, http://[::1] or http://localhost in lower case, an optional port (1-65535, no leading zero), then a path of URI characters`;
}

/**
 * Why a self-registered metadata member (open registration, or a Client ID Metadata Document) breaks a
 * cap or carries undisplayable text, or undefined.
 */
export function memberProblem(key: string, value: unknown): string | undefined {
  const strings = Array.isArray(value) ? value : [value];
  if (Array.isArray(value)) {
    const max = key === 'redirect_uris' ? REGISTRATION_CAPS.redirectUris : REGISTRATION_CAPS.list;
    if (value.length > max) return `${key} may list at most ${max} entries`;
  }
  const max = key === 'client_name' ? REGISTRATION_CAPS.clientName : REGISTRATION_CAPS.string;
  for (const text of strings) {
    if (typeof text !== 'string') continue;
    if (text.length > max) return `${key} may be at most ${max} characters long`;
    const problem = displayTextProblem(text);
    if (problem) return `${key} ${problem}`;
  }
  return undefined;
}

/**
 * `extraClientMetadata.validator`: enforces the open-registration policy on registration requests and
 * fixes up what oidc-provider would otherwise get wrong for public clients.
 */
export function validateClientMetadata(
  ctx: KoaContextWithOIDC | undefined,
  key: string,
  value: unknown,
  metadata: ClientMetadata,
): void {
  if (key !== CLIENT_ROLE || !ctx) return; // stored clients load as the operator made them
  if (value !== undefined) {
    throw new errors.InvalidClientMetadata(`${CLIENT_ROLE} is reserved for clients created by the operator`);
  }
  const refusedUrl = refusedUrlMemberProblem(metadata);
  if (refusedUrl) throw new errors.InvalidClientMetadata(refusedUrl);
  for (const [member, value] of Object.entries(metadata)) {
    const problem = memberProblem(member, value);
    if (problem) throw new errors.InvalidClientMetadata(problem);
  }
  const uris = metadata.redirect_uris;
  // oidc-provider asks for redirect URIs only of clients with a redirect-based grant; open
  // registration is for the code flow, so a client without any is refused whatever it asks for.
  if (!Array.isArray(uris) || uris.length === 0) {
    throw invalidRedirectUri('redirect_uris is required: list at least one loopback redirect URI');
  }
  const problems = uris.map(loopbackRedirectProblem).filter(Boolean);
  if (problems.length) throw new errors.InvalidClientMetadata(`redirect_uris ${problems.join('; ')}`);
  // Where sign-out (end_session_endpoint) may send the browser afterwards: the same loopback rule.
  const afterSignOut = metadata.post_logout_redirect_uris;
  const signOutProblems = Array.isArray(afterSignOut)
    ? afterSignOut.map(loopbackRedirectProblem).filter(Boolean)
    : [];
  if (signOutProblems.length)
    throw new errors.InvalidClientMetadata(`post_logout_redirect_uris ${signOutProblems.join('; ')}`);
  // Loopback clients are native apps, even those that say web: this also turns on any-port matching
  // (RFC 8252 §7.3). Overriding the value skips oidc-provider's own check of it, so it is done here.
  if (!['native', 'web', undefined].includes(metadata.application_type)) {
    throw new errors.InvalidClientMetadata('application_type must be native or web');
  }
  metadata.application_type = 'native';
  dropScope(metadata);
  if (metadata.token_endpoint_auth_method === undefined || metadata.token_endpoint_auth_method === 'none') {
    // oidc-provider decides to issue a secret from the raw body: a public client must get none.
    delete metadata.client_secret;
    delete metadata.client_secret_expires_at;
  }
}

/**
 * URL-valued client metadata members this server would have to fetch, or send a browser or a
 * back-channel request to, to honour. None of them serves anything here (public subjects only, no
 * client keys, no third-party login), so open registration refuses them rather than storing a URL
 * nobody should follow; oidc-provider's own fetch is off as well (configuration.ts). Members of
 * features that are off (`request_uris`, back- and front-channel logout) are dropped by oidc-provider
 * before this rule sees them: neither stored nor followed. The other URL members (`client_uri`,
 * `logo_uri`, `policy_uri`, `tos_uri`) are stored as text and never followed; redirect URIs follow
 * the loopback rule.
 */
export const REFUSED_URL_MEMBERS: readonly string[] = [
  'sector_identifier_uri',
  'jwks_uri',
  'initiate_login_uri',
];

/** Why `metadata` names a member of {@link REFUSED_URL_MEMBERS}, or `undefined`. */
export function refusedUrlMemberProblem(metadata: object): string | undefined {
  const named = REFUSED_URL_MEMBERS.find((member) => member in metadata);
  return named && `${named} is not supported: this server never fetches or calls a client's URLs`;
}

/**
 * `invalid_redirect_uri` with `description`: oidc-provider's class ignores a message and always says
 * "redirect_uri did not match any of the client's registered redirect_uris".
 */
export function invalidRedirectUri(description: string): InstanceType<typeof errors.InvalidRedirectUri> {
  return Object.assign(new errors.InvalidRedirectUri(), { error_description: description });
}

const KNOWN_SCOPES = new Set(ALL_SCOPE_NAMES);

/**
 * A registered `scope` would cap every later request (oidc-provider refuses the rest with
 * invalid_scope), and MCP clients register with the scope of their first authorization: they could
 * never step up (docs/decisions.md). So a `scope` is checked as oidc-provider checks it (a non-empty
 * string of scopes this server defines, single spaces) and then not kept: what a client gets is
 * decided per request, by consent. RFC 7591 lets the server register less than was sent; the answer
 * then names no scope.
 */
function dropScope(metadata: ClientMetadata): void {
  if (!('scope' in metadata)) return;
  const { scope } = metadata;
  if (typeof scope !== 'string' || !scope) {
    throw new errors.InvalidClientMetadata('scope must be a non-empty string if provided');
  }
  if (scope.split(' ').some((name) => !KNOWN_SCOPES.has(name))) {
    throw new errors.InvalidClientMetadata(
      'scope must only contain Authorization Server supported scope values',
    );
  }
  delete metadata.scope;
}
