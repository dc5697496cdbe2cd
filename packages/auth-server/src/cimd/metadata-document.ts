/**
 * A Client ID Metadata Document checked, and turned into the client oidc-provider loads.
 *
 * The rules (draft-ietf-oauth-client-id-metadata-document §4): the document's `client_id`
 * is the URL it was fetched from, byte for byte; the client is public: this server takes no client
 * keys from a document, so the client authenticates with `none`. A document that offers `none`, as
 * its `token_endpoint_auth_method` or among its `token_endpoint_auth_methods_supported`, is taken as
 * such (real clients publish `private_key_jwt` with `none` as a fallback and negotiate down, as other
 * servers do); one that offers only methods this server does not take is refused, naming what it
 * takes; a document carrying a secret is refused. Grant and response types are those open
 * registration allows; members this server does not use are ignored, and a member it uses with the
 * wrong type refuses the whole document. Strings follow open registration's caps and display rules.
 *
 * Redirect URIs follow open registration's policy: canonical loopback `http` URIs always (any port
 * at authorization, a portless one included: the client is `native`, RFC 8252 §7.3); `https` URIs
 * only for a client_id URL an operator allowed (`school-auth clients allow-cimd`). For any other
 * client they are left out of the client, so an authorization request naming one stops on our error
 * page with `invalid_redirect_uri`, never redirecting; a document with no usable URI at all is
 * refused the same way.
 */
import { errors, type ClientMetadata } from 'oidc-provider';
import { z } from 'zod';
import { isLoopbackRedirectUri } from '@school/shared';
import { invalidRedirectUri, loopbackRedirectProblem, memberProblem } from '../provider/client-policy.js';
import { integrationRedirectProblem } from '../provider/operator-clients.js';

const httpsUri = z.string().refine((v) => URL.parse(v)?.protocol === 'https:', 'must be an https URL');

/** The members this server uses; every other member is ignored (zod strips it). */
const documentSchema = z.object({
  client_id: z.string(),
  client_name: z.string().optional(),
  redirect_uris: z.array(z.string()).min(1, 'must list at least one redirect URI'),
  token_endpoint_auth_method: z.string().optional(),
  token_endpoint_auth_methods_supported: z.array(z.string()).optional(),
  grant_types: z.array(z.enum(['authorization_code', 'refresh_token'])).optional(),
  response_types: z.array(z.literal('code')).optional(),
  application_type: z.enum(['native', 'web']).optional(),
  client_uri: httpsUri.optional(),
  logo_uri: httpsUri.optional(),
  policy_uri: httpsUri.optional(),
  tos_uri: httpsUri.optional(),
  contacts: z.array(z.string()).optional(),
  software_id: z.string().optional(),
  software_version: z.string().optional(),
  dpop_bound_access_tokens: z.boolean().optional(),
});

/** A document that passed {@link checkDocument}: only the members this server uses. */
export type MetadataDocument = z.output<typeof documentSchema>;

const refuse = (why: string): never => {
  throw new errors.InvalidClient(`client_id metadata document ${why}`);
};

/** The document `body` fetched from `url`, checked; throws `invalid_client` naming the first problem. */
export function checkDocument(url: string, body: unknown): MetadataDocument {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return refuse('is not a JSON object');
  if ('client_secret' in body || 'client_secret_expires_at' in body)
    return refuse('must not carry a client secret');
  // A client that names a sector expects pairwise subjects, which this server does not issue; the
  // other URL members it does not use (jwks_uri, request_uris, ...) are dropped, never followed.
  if ('sector_identifier_uri' in body)
    return refuse('must not carry sector_identifier_uri: this server issues public subjects only');
  const parsed = documentSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return refuse(`member ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  const doc = parsed.data;
  if (doc.client_id !== url) return refuse(`client_id must be the URL it is served at (${url})`);
  const offered = [
    doc.token_endpoint_auth_method,
    ...(doc.token_endpoint_auth_methods_supported ?? []),
  ].filter((m): m is string => m !== undefined);
  if (offered.length && !offered.includes('none'))
    refuse(
      `offers token_endpoint_auth_method ${[...new Set(offered)].join(', ')}; this server takes only none for metadata-document clients (a public client with PKCE): offer none`,
    );
  for (const [member, value] of Object.entries(doc)) {
    const problem = memberProblem(member, value);
    if (problem) refuse(problem);
  }
  for (const uri of doc.redirect_uris) {
    const problem =
      URL.parse(uri)?.protocol === 'https:' ? integrationRedirectProblem(uri) : loopbackRedirectProblem(uri);
    if (problem) refuse(`redirect_uris ${problem.replace(/; fixed HTTPS callbacks need .*$/, '')}`);
  }
  return doc;
}

/**
 * The client oidc-provider loads for a checked document. `httpsAllowed`: an operator allowed this
 * client_id URL to use `https` redirect URIs.
 */
export function toClientMetadata(doc: MetadataDocument, httpsAllowed: boolean): ClientMetadata {
  const loopback = doc.redirect_uris.filter(isLoopbackRedirectUri);
  const redirectUris = httpsAllowed ? doc.redirect_uris : loopback;
  if (!redirectUris.length) {
    throw invalidRedirectUri(
      'redirect_uris: this client may only use loopback redirect URIs (https ones need an operator to allow its client_id)',
    );
  }
  const { client_id, client_name, client_uri, logo_uri, policy_uri, tos_uri, contacts } = doc;
  return Object.fromEntries(
    Object.entries({
      client_id,
      client_name,
      client_uri,
      logo_uri,
      policy_uri,
      tos_uri,
      contacts,
      redirect_uris: redirectUris,
      grant_types: doc.grant_types ?? ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      // Loopback-only clients are native apps, as in open registration (any-port matching); a client
      // with fixed https callbacks is a web app, whose consent is remembered.
      application_type: redirectUris.length === loopback.length ? 'native' : 'web',
      dpop_bound_access_tokens: doc.dpop_bound_access_tokens,
    }).filter(([, v]) => v !== undefined),
  ) as ClientMetadata;
}
