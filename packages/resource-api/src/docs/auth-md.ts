/**
 * `GET /auth.md`: the authentication walkthrough for agents and developers, generated from the
 * configuration, the endpoint table (`@school/shared` oauth-endpoints.ts) and the registry (URLs,
 * scopes, areas), so it cannot drift from what the server does.
 */
import {
  ACCOUNT_PATH,
  API_SCOPES,
  BASELINE_SCOPE_NAMES,
  DISCOVERY_PATHS,
  ENDPOINTS,
  OAUTH_ROUTES,
  OIDC_SCOPES,
} from '@school/shared';
import { prmUrl, type ApiConfig } from '../config.js';
import { scopeOf, type AreaModule } from '../lib/operation.js';

/** The Markdown text for a deployment. */
export function authMarkdown(config: Pick<ApiConfig, 'BASE_URL'>, registry: readonly AreaModule[]): string {
  const base = config.BASE_URL;
  const prm = prmUrl(config);
  const publicOps = registry
    .flatMap((a) => a.operations)
    .filter((op) => op.response.public)
    .map((op) => `- \`${op.method.toUpperCase()} ${op.path}\``)
    .join('\n');
  const endpointRows = ENDPOINTS.filter((e) => e.docs?.tag === 'oauth')
    .map(
      (e) =>
        `| \`${e.methods.filter((m) => m !== 'HEAD').join(', ')} ${e.path}\` | ${e.docs!.summary} | ${
          e.cors ? 'yes' : 'no'
        } | ${e.rateLimit ? 'yes' : 'no'} |`,
    )
    .join('\n');
  const scopeRows = [
    ...Object.entries(OIDC_SCOPES).map(([name, description]) => `| \`${name}\` | ${description} |`),
    ...API_SCOPES.map((s) => `| \`${s.name}\` | ${s.description} |`),
  ].join('\n');
  const areaRows = registry
    .map(
      (a) =>
        `| \`/api/v1/${a.name}\` | ${a.operations
          .map(
            (op) =>
              `${op.method.toUpperCase()} ${op.path.replace(`/api/v1/${a.name}`, '') || '/'} (\`${scopeOf(op)}\`)`,
          )
          .join('<br>')} |`,
    )
    .join('\n');

  return `# Authenticating to ${base}

This API is an OAuth 2.0 protected resource. Clients get tokens with the **Authorization Code flow
with PKCE (S256 only)** from the authorization server at the same origin, naming themselves by a
**Client ID Metadata Document** (an https URL, step 2) or by registering (step 2b). No API key, sales
contact or manual approval is needed. Everything below uses \`${base}\`; the machine-readable
description is \`${base}/openapi.json\`.

Order: **discover → client id (document, or register) → authorize → exchange the code → call the API →
refresh → revoke.**

## 1. Discover

\`\`\`sh
curl -s ${prm}
curl -s ${base}${DISCOVERY_PATHS.authorizationServer}
\`\`\`

The protected-resource metadata (RFC 9728) says \`"resource": "${base}"\` and
\`"authorization_servers": ["${base}"]\`. Its \`scopes_supported\` is a baseline,
${BASELINE_SCOPE_NAMES.map((n) => `\`${n}\``).join(' and ')}: ask for that first, and for more when a
challenge names it (*What 401, 403 and 503 mean*, below). The authorization-server metadata (RFC 8414) lists every
endpoint, grant type and scope and is the source of truth if anything here disagrees. It says
\`"client_id_metadata_document_supported": true\`: a client may use the URL of its metadata document
as its \`client_id\` (step 2) instead of registering.

## 2. Client ID Metadata Document (no registration)

Publish a JSON document at an \`https\` URL with a path, and use that URL, exactly as written, as your
\`client_id\` (draft-ietf-oauth-client-id-metadata-document; what the MCP authorization specification
asks clients without a prior relationship to use). The authorization server fetches it when your
client first appears, and again as its \`Cache-Control\` allows. A minimal document, served at
\`https://agent.example/oauth/client.json\` as \`application/json\`:

\`\`\`json
{
  "client_id": "https://agent.example/oauth/client.json",
  "client_name": "My Agent",
  "redirect_uris": ["http://127.0.0.1/callback"],
  "token_endpoint_auth_method": "none"
}
\`\`\`

- \`client_id\` must equal the URL byte for byte (lower-case scheme and host, no default port, no
  fragment, no credentials).
- The client is public and authenticates with \`none\`. A document that offers \`none\`, as its
  \`token_endpoint_auth_method\` (the default) or among its \`token_endpoint_auth_methods_supported\`,
  is taken as such (its \`jwks_uri\` is neither kept nor fetched); one that offers only other methods
  is refused with \`invalid_client\`, and a secret in it is refused. \`grant_types\` may be
  \`authorization_code\` and \`refresh_token\` (the default), \`response_types\` only \`code\`.
- \`sector_identifier_uri\` is refused: this server issues public subjects only.
- When a document cannot be fetched, the answer is \`invalid_client\` "could not be fetched; try
  again later" (the school's operators see why); a client id new to the server is fetched at most 10
  times a minute per address (over it: \`429\` with \`Retry-After\`).
- Redirect URIs follow the registration rules: \`http\` on \`127.0.0.1\`, \`[::1]\` or \`localhost\`,
  any port at authorization. A URI without a port (\`http://127.0.0.1/callback\`) matches every port.
  An \`https\` redirect URI works only after the school's operators allowed your \`client_id\`;
  otherwise the authorization stops on an error page with \`invalid_redirect_uri\`.
- Unknown members are ignored; a known member with the wrong type refuses the document. Keep it under
  5 KB; the server follows no redirect and reads only \`200\` with \`Content-Type: application/json\`.
- The sign-in page shows the document's host as the app's verified address. If you change the name
  or the redirect URIs, users are asked for consent again.

Then go to step 3 with \`CLIENT_ID=https://agent.example/oauth/client.json\` (URL-encoded in the
authorization URL). The MCP TypeScript client does all this when given \`clientMetadataUrl\`.

## 2b. Or register (loopback redirect URIs only)

Open dynamic registration (RFC 7591), no initial access token. Redirect URIs must be \`http\` on a
loopback host: \`http://127.0.0.1:<port>/<path>\` (also \`[::1]\` or \`localhost\`). Any other redirect
URI, \`https\` included, is refused with \`400 invalid_redirect_uri\`; fixed HTTPS callbacks need an
integration registered by the school's operators.

\`\`\`sh
curl -s -X POST ${base}${OAUTH_ROUTES.registration} \\
  -H 'Content-Type: application/json' \\
  -d '{"client_name":"My CLI","application_type":"native","redirect_uris":["http://127.0.0.1:53682/callback"],"token_endpoint_auth_method":"none"}'
# → 201 {"client_id":"...", ...}
\`\`\`

\`token_endpoint_auth_method\` is \`none\` (public client, the default) or \`client_secret_post\`
(confidential: the response also has \`client_secret\`, sent as a form parameter on every token call).

## 3. Authorize with PKCE (S256)

\`\`\`sh
CLIENT_ID=...   # from step 2 (your document's URL) or 2b
VERIFIER=$(openssl rand -base64 48 | tr -d '=+/\\n' | cut -c1-64)
CHALLENGE=$(printf %s "$VERIFIER" | openssl dgst -sha256 -binary | openssl base64 -A | tr '+/' '-_' | tr -d '=')
STATE=$(openssl rand -hex 16)
echo "${base}${OAUTH_ROUTES.authorization}?response_type=code&client_id=$CLIENT_ID&redirect_uri=http%3A%2F%2F127.0.0.1%3A53682%2Fcallback&scope=courses%3Aread%20students%3Aread&code_challenge=$CHALLENGE&code_challenge_method=S256&state=$STATE&resource=${encodeURIComponent(base)}"
\`\`\`

Open that URL in the user's browser. The user signs in and approves; the browser is sent to your
redirect URI with \`code\`, \`state\` (check it equals \`$STATE\`) and \`iss\` (RFC 9207; check it equals
\`${base}\`). A program listens on the loopback port to receive it; by hand, copy \`code\` from the
address bar. Scopes are space-separated (\`%20\`). A refusal comes back as \`error=access_denied\`.
Codes are short-lived and single-use.

## 4. Exchange the code

\`\`\`sh
curl -s -X POST ${base}${OAUTH_ROUTES.token} \\
  -d grant_type=authorization_code -d code="$CODE" \\
  -d redirect_uri=http://127.0.0.1:53682/callback \\
  -d client_id="$CLIENT_ID" -d code_verifier="$VERIFIER" \\
  -d resource=${base}
# → {"access_token":"...","token_type":"Bearer","expires_in":3600,"refresh_token":"...","scope":"..."}
\`\`\`

### The \`resource\` parameter (RFC 8707)

- With \`resource=${base}\` (with or without a trailing slash) the token is **bound** to this API:
  introspection shows \`aud\`, it carries only the API scopes, and it is refused by userinfo.
- Without \`resource\` the token is unbound: it carries every granted scope and works at the API and
  at \`${OAUTH_ROUTES.userinfo}\`.
- Any other \`resource\` value is refused with \`invalid_target\`. This API refuses tokens bound to
  another resource.

## 5. Call the API

\`\`\`sh
curl -s ${base}/api/v1/courses -H "Authorization: Bearer $ACCESS_TOKEN"
\`\`\`

Send the token only in the \`Authorization\` header (not in the query string or the body). Lists are
paginated: pass \`limit\` (1-100, default 20) and the \`next_cursor\` of a page as \`cursor\`.

## 6. Refresh

\`\`\`sh
curl -s -X POST ${base}${OAUTH_ROUTES.token} \\
  -d grant_type=refresh_token -d refresh_token="$REFRESH_TOKEN" -d client_id="$CLIENT_ID" \\
  -d resource=${base}
\`\`\`

No user interaction. Public clients get a new refresh token each time (rotation): keep the newest.
Several processes of one app that share one stored refresh token may present an older one: within
10 minutes of its rotation (the server's \`REFRESH_REUSE_GRACE\`, by default), the same
\`client_id\` presenting it from the same installation gets **the grant's current refresh token and a
fresh access token**, however many rotations ago it was replaced. The same installation means: for a
DPoP-bound refresh token, a DPoP proof of its key (from any address); otherwise, the network address
of the grant's last refresh. A hosted client (every redirect URI a fixed https callback, e.g. a
connector running in its provider's cloud), whose workers race, may also present the token the last
rotation replaced from another address within 30 seconds of that rotation (the server's
\`HOSTED_REFRESH_RACE\`, by default), and any rotated token from inside the egress ranges an
operator listed for it, for the whole window. Any other
reuse (another client, another key or no proof, another address, a token a generation older from
another address, or after the window) is treated as theft: \`400 invalid_grant\`, and the whole grant
ends at once (every token refused; the user authorizes again). The user sees such reuse as "used from
several places" on Connected apps.

## DPoP (optional)

Sender-constrained tokens (RFC 9449) are supported, not required
(\`dpop_signing_alg_values_supported\`: ES256, Ed25519, EdDSA; no nonces). Send a \`DPoP\` proof header
(\`htm\` POST, \`htu\` ${base}${OAUTH_ROUTES.token}) with the code exchange and each refresh: the
answer's \`token_type\` is \`DPoP\` and the tokens are bound to your key (a public client's refresh
token needs a proof of the same key on every refresh). Then call the API with
\`Authorization: DPoP <access token>\` and a new proof per request: \`htm\` the method, \`htu\` the URL
you called under ${base} without query or fragment, \`ath\` the base64url SHA-256 of the access
token, a unique \`jti\`, \`iat\` within 5 minutes of now. Each proof is accepted once. A bound token
sent as \`Bearer\` is refused, as is a bearer token sent as \`DPoP\`.

## Agents without a browser: device pairing (only where the school turned it on)

An agent that cannot receive a redirect on this computer's loopback (over SSH, in a container, a
Codespace or WSL) may pair with a code instead (RFC 8628), **only if** the authorization server
metadata lists \`device_authorization_endpoint\`: schools leave it off unless they need it, because
the plain device grant is what device-code phishing abuses. Where it is on, a school may offer it to
its registered integrations and the metadata-document clients it allowed only, or to every client; the
client lists
\`urn:ietf:params:oauth:grant-type:device_code\` in its \`grant_types\` (an unlisted or unallowed
client gets \`invalid_request\`: "… is not allowed for this client"). Everywhere else use steps 2 to 4.

\`\`\`sh
curl -s -X POST ${base}${OAUTH_ROUTES.device_authorization} -d client_id="$CLIENT_ID" \\
     -d scope="school:read courses:read" -d resource="${base}"
# {"device_code":"…","user_code":"BCDF-GHJK","verification_uri":"${base}${OAUTH_ROUTES.code_verification}","expires_in":300,…}
\`\`\`

Show the person \`user_code\` and \`verification_uri\` and nothing else: they open the page, sign in
(with their passkey if they have one), **type** the code (a link never fills it in) and see your
app's name and client id, the scopes, and the address your request came from, with a warning when it
is not their own network. Meanwhile poll the token endpoint with
\`grant_type=urn:ietf:params:oauth:grant-type:device_code\`, \`device_code\` and \`client_id\`, no more
often than every five seconds: \`authorization_pending\` means keep waiting, \`slow_down\` means wait five
seconds longer from now on, \`access_denied\` that the person denied it (or entered another code
since), \`expired_token\` that the 5 minutes ran out. A DPoP proof on the polls binds the tokens as
in the code exchange. The tokens then work and refresh as in steps 5 and 6.

## 7. Revoke

\`\`\`sh
curl -s -X POST ${base}${OAUTH_ROUTES.revocation} -d token="$REFRESH_TOKEN" -d client_id="$CLIENT_ID"
\`\`\`

Revoking either token ends its grant: the refresh token and every access token issued under it
(a client signing the same user in again in the same browser session reuses the grant). The API
refuses a revoked token on its very next use.

The person who allowed an app can take its access back too, without its tokens: on
**Connected apps**, ${base}${ACCOUNT_PATH}/apps (sign in with the school account; every app they
allowed, its scopes, when it was last used, and a Revoke button). Sign-out is at
${base}${OAUTH_ROUTES.end_session} (the \`end_session_endpoint\`); it ends the browser's session, never
an app's access.
The school's admins can also delete a registered client (**All clients**,
${base}${ACCOUNT_PATH}/clients): its grants and tokens end with it, and its \`client_id\` then answers
\`invalid_client\`; register again.

## When your client is gone (\`invalid_client\`)

A registered client is removed, with its grants and tokens, by a school admin, or by the server when
it never completed an authorization within 24 hours of registering, or when none of its tokens was
used for 90 days (the defaults; a school may set others). Its \`client_id\` then answers \`401 invalid_client\` at the token, revocation and
introspection endpoints and the authorization endpoint shows an error page. Recover by registering
again (step 2b) and sending the user through authorization again; drop the stored tokens of the old
client. A metadata-document client (step 2) is never removed for good: its next use fetches the
document again.

## Authorization server endpoints

| Endpoint | What | Callable from a browser page (CORS) | Rate limited (429, \`Retry-After\`) |
| --- | --- | --- | --- |
${endpointRows}

## Token endpoint errors

The RFC 6749 codes, with a description that says what to fix: a \`code_verifier\` that does not
match (PKCE verification failed), a \`redirect_uri\` other than the authorization request's (the
port too), a code that is unknown, expired, used or another client's (one description for all:
start a new authorization), a refresh token that is unknown, expired, revoked or another client's
(likewise), a \`resource\` the grant does not have (\`invalid_target\`; the refresh token stays
usable).

## Anonymous access

A request **without** an \`Authorization\` header is served as anonymous; it is never challenged (no
401, no \`WWW-Authenticate\`). These operations answer anonymous callers with a public view
(published items only, fewer fields):

${publicOps}

Every other operation answers an anonymous call with \`403\` and

\`\`\`
Link: <${prm}>; rel="oauth-protected-resource"
{"error":"access_denied","error_description":"...","required_scopes":["<area>:<read|write>"]}
\`\`\`

## What 401, 403 and 503 mean

| Answer | When | Headers |
| --- | --- | --- |
| \`401 invalid_token\` | the \`Authorization\` header is not \`Bearer <token>\` (or \`DPoP <token>\`), or the token is unknown, expired, revoked, a refresh token, bound to another resource, or sent with the wrong scheme (a DPoP-bound token as Bearer) | \`WWW-Authenticate: Bearer error="invalid_token", error_description="...", scope="<needed>", resource_metadata="${prm}"\` (\`DPoP ...\` with \`algs\` for the DPoP scheme or a DPoP-bound token) |
| \`401 invalid_dpop_proof\` | a DPoP-bound token without one valid, unused \`DPoP\` proof for this request | \`WWW-Authenticate: DPoP error="invalid_dpop_proof", error_description="...", resource_metadata="${prm}", algs="ES256 Ed25519 EdDSA"\` |
| \`403 insufficient_scope\` | the token is good but lacks the operation's scope | \`WWW-Authenticate: Bearer error="insufficient_scope", scope="<needed>", resource_metadata="${prm}", error_description="..."\` |
| \`403 access_denied\` | no token, and the operation has no public view | \`Link: <${prm}>; rel="oauth-protected-resource"\` |
| \`503 temporarily_unavailable\` | the authorization server cannot be reached to check the token, or the database is unavailable; retry | \`Retry-After\` |

On \`401\` get a new token (refresh, or authorize again). On \`403 insufficient_scope\` **do not
refresh**: a refresh cannot add a scope (the refreshed token carries exactly what the grant holds), so
it brings the same 403 back. Start a new authorization request (authorization code with PKCE) asking
for the union of the scopes you hold and the one named in the challenge (\`scope\` in
\`WWW-Authenticate\`, \`required_scopes\` in the body): the person is asked only about the new one,
and the new token carries them all. The challenge's \`error_description\` says the same and spells
the union out. Every error body is
\`{"error": "...", "error_description": "..."}\`.

## Not supported

The **agent_auth** extension is not supported: no autonomous \`identity_assertion\` through ID-JAG,
no \`service_auth\`, no anonymous claim ceremony. Do not send an ID-JAG assertion and do not call an
\`identity_endpoint\` or \`register_uri\`: they do not exist, and the token endpoint refuses such grants
with \`unsupported_grant_type\`. There is **no claim step** in the Authorization Code flow: once the
code is exchanged, the token is ready to use.

## Scopes

Scope checks are exact: a read needs \`<area>:read\`, a write \`<area>:write\`.

| Scope | Grants |
| --- | --- |
${scopeRows}

## Areas and operations

| Path | Operations (scope) |
| --- | --- |
${areaRows}
`;
}
