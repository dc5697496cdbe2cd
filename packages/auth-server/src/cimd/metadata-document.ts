/**
 * A Client ID Metadata Document read, and turned into the client oidc-provider loads.
 *
 * Documents are read leniently, as oidc-provider reads them for its own metadata-document clients:
 * the values this server supports are kept and the others dropped (grant types such as Claude's
 * `jwt-bearer`, response types other than `code`, redirect URIs it cannot
 * use, display URLs that are not https, an `application_type` it does not know); a document is refused
 * only when nothing usable is left, with a description naming what is missing: no
 * `authorization_code` among its grant types, no `code` among its response types, no usable redirect
 * URI, no `none` among the authentication methods it offers. What was dropped is returned beside the
 * document, for the log and the operator's view (`school-auth clients cimd`, `clients check`). Members
 * this server does not use are ignored (zod strips them) and not reported.
 *
 * What still refuses the whole document (draft-ietf-oauth-client-id-metadata-document §4): a
 * `client_id` other than the URL it was fetched from, byte for byte; a client secret; a
 * `sector_identifier_uri` (the client expects pairwise subjects, which this server does not issue); a
 * member this server uses given with the wrong JSON type (a broken document, not an unsupported
 * value); a string breaking open registration's caps or display rules (a name is shown to a person).
 *
 * The client is public: this server takes no client keys from a document, so the client
 * authenticates with `none`. A document that offers `none`, as its `token_endpoint_auth_method` or
 * among its `token_endpoint_auth_methods_supported`, is taken as such (real clients publish
 * `private_key_jwt` or `client_secret_post` with `none` as a fallback and negotiate down, as other
 * servers do).
 *
 * Redirect URIs follow open registration's policy: canonical loopback `http` URIs always (any port
 * at authorization, a portless one included: the client is `native`, RFC 8252 §7.3); `https` URIs
 * only for a client_id URL an operator allowed (`school-auth clients allow-cimd`). The https URIs are
 * kept in the document, since the operator's word can change while it is cached, and left out of the
 * client ({@link redirectUsability}), so an authorization request naming one stops on our error page
 * with `invalid_redirect_uri`, never redirecting; a document with no usable URI is refused the same way.
 *
 * The device pairing grant type (VS Code lists it) is kept in the document the same way and given to
 * the client only as DEVICE_PAIRING allows ({@link grantUsability}: `all`, or `integrations` for a
 * client_id an operator allowed); otherwise it is reported as not usable and the grant is refused.
 */
import { errors, type ClientMetadata } from 'oidc-provider';
import { z } from 'zod';
import { DEVICE_CODE_GRANT_TYPE, isLoopbackRedirectUri } from '@school/shared';
import { documentMayPairDevices, type DevicePairingMode } from '../provider/device-pairing-policy.js';
import { invalidRedirectUri, loopbackRedirectProblem, memberProblem } from '../provider/client-policy.js';
import { integrationRedirectProblem } from '../provider/operator-clients.js';

/** The grant types a metadata-document client has when its document names none. */
const GRANT_TYPES = ['authorization_code', 'refresh_token'];
/** The grant types a document may list (device pairing subject to {@link grantUsability}). */
const DOCUMENT_GRANT_TYPES = [...GRANT_TYPES, DEVICE_CODE_GRANT_TYPE];
/** The display URLs, kept only when https (they are shown, never fetched). */
const DISPLAY_URIS = ['client_uri', 'logo_uri', 'policy_uri', 'tos_uri'] as const;

/** The members this server uses; every other member is ignored (zod strips it). */
const documentSchema = z.object({
  client_id: z.string(),
  client_name: z.string().optional(),
  redirect_uris: z.array(z.string()).min(1, 'must list at least one redirect URI'),
  token_endpoint_auth_method: z.string().optional(),
  token_endpoint_auth_methods_supported: z.array(z.string()).optional(),
  grant_types: z.array(z.string()).optional(),
  response_types: z.array(z.string()).optional(),
  application_type: z.string().optional(),
  client_uri: z.string().optional(),
  logo_uri: z.string().optional(),
  policy_uri: z.string().optional(),
  tos_uri: z.string().optional(),
  contacts: z.array(z.string()).optional(),
  software_id: z.string().optional(),
  software_version: z.string().optional(),
  dpop_bound_access_tokens: z.boolean().optional(),
});

/** A document read by {@link checkDocument}: only the members and values this server uses. */
export type MetadataDocument = z.output<typeof documentSchema>;

/** A value a document listed that this server does not use, and why. */
export interface DroppedValue {
  member: string;
  value: string;
  why: string;
}

/** A document as this server takes it, and what it dropped from it. */
export interface CheckedDocument {
  doc: MetadataDocument;
  dropped: DroppedValue[];
}

const refuse = (why: string): never => {
  throw new errors.InvalidClient(`client_id metadata document ${why}`);
};

/** `values` split into those in `kept` and the rest, each rest value recorded as dropped. */
function keepOnly(
  member: string,
  values: string[],
  kept: (v: string) => string | undefined,
  out: DroppedValue[],
) {
  return values.filter((value) => {
    const why = kept(value);
    if (why) out.push({ member, value, why });
    return !why;
  });
}

/** The document `body` fetched from `url`, read; throws `invalid_client` naming what is missing. */
export function checkDocument(url: string, body: unknown): CheckedDocument {
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
  const doc = { ...parsed.data };
  if (doc.client_id !== url) return refuse(`client_id must be the URL it is served at (${url})`);
  const dropped: DroppedValue[] = [];
  negotiateAuthMethod(doc, dropped);
  if (doc.grant_types) {
    doc.grant_types = keepOnly(
      'grant_types',
      doc.grant_types,
      (g) =>
        DOCUMENT_GRANT_TYPES.includes(g) ? undefined : 'not a grant type of metadata-document clients here',
      dropped,
    );
    if (!doc.grant_types.includes('authorization_code'))
      refuse(
        'grant_types lists no authorization_code: metadata-document clients here use the authorization code flow',
      );
  }
  if (doc.response_types) {
    doc.response_types = keepOnly(
      'response_types',
      doc.response_types,
      (r) => (r === 'code' ? undefined : 'only code is served'),
      dropped,
    );
    if (!doc.response_types.length) refuse('response_types lists no code: only the code flow is served');
  }
  if (doc.application_type !== undefined && !['native', 'web'].includes(doc.application_type)) {
    dropped.push({ member: 'application_type', value: doc.application_type, why: 'must be native or web' });
    delete doc.application_type;
  }
  for (const member of DISPLAY_URIS) {
    const value = doc[member];
    if (value !== undefined && URL.parse(value)?.protocol !== 'https:') {
      dropped.push({ member, value, why: 'must be an https URL' });
      delete doc[member];
    }
  }
  doc.redirect_uris = keepOnly('redirect_uris', doc.redirect_uris, redirectUriProblem, dropped);
  if (!doc.redirect_uris.length)
    refuse(
      'redirect_uris lists no usable redirect URI: list a loopback one (http://127.0.0.1:<port>/<path>), or an https one for a client an operator allowed',
    );
  for (const [member, value] of Object.entries(doc)) {
    const problem = memberProblem(member, value);
    if (problem) refuse(problem);
  }
  return { doc, dropped };
}

/**
 * Settles on `none`: refuses a document that offers only other methods; otherwise drops the method
 * lists, recording a declared method other than `none` as negotiated down.
 */
function negotiateAuthMethod(doc: MetadataDocument, dropped: DroppedValue[]): void {
  const declared = doc.token_endpoint_auth_method;
  const offered = [declared, ...(doc.token_endpoint_auth_methods_supported ?? [])].filter(
    (m): m is string => m !== undefined,
  );
  if (offered.length && !offered.includes('none'))
    refuse(
      `offers token_endpoint_auth_method ${[...new Set(offered)].join(', ')}; this server takes only none for metadata-document clients (a public client with PKCE): offer none`,
    );
  if (declared !== undefined && declared !== 'none')
    dropped.push({
      member: 'token_endpoint_auth_method',
      value: declared,
      why: 'negotiated to none, which the document also offers',
    });
  doc.token_endpoint_auth_method = offered.length ? 'none' : undefined;
  delete doc.token_endpoint_auth_methods_supported;
}

/** Why a listed redirect URI can never be used (whether or not an operator allows https), or undefined. */
function redirectUriProblem(uri: string): string | undefined {
  const problem =
    URL.parse(uri)?.protocol === 'https:' ? integrationRedirectProblem(uri) : loopbackRedirectProblem(uri);
  return problem?.replace(/^'.*?' /, '').replace(/; fixed HTTPS callbacks need .*$/, '');
}

/** Why an https redirect URI is not used for a client an operator has not allowed. */
export const HTTPS_NOT_ALLOWED =
  'https redirect URIs need an operator to allow this client_id (school-auth clients allow-cimd)';

/** The redirect URIs of `doc` the client gets, and those it does not (https ones not allowed). */
export function redirectUsability(
  doc: MetadataDocument,
  httpsAllowed: boolean,
): { usable: string[]; unusable: DroppedValue[] } {
  const unusable: DroppedValue[] = [];
  const usable = keepOnly(
    'redirect_uris',
    doc.redirect_uris,
    (uri) => (httpsAllowed || isLoopbackRedirectUri(uri) ? undefined : HTTPS_NOT_ALLOWED),
    unusable,
  );
  return { usable, unusable };
}

/** How DEVICE_PAIRING and the operator's word apply to a document's client. */
export interface DocumentUse {
  /** An operator allowed this client_id URL (`school-auth clients allow-cimd`). */
  allowed: boolean;
  /** DEVICE_PAIRING (off when not given). */
  devicePairing?: DevicePairingMode;
}

/** The grant types of `doc` the client gets, and those it does not (device pairing not allowed). */
export function grantUsability(
  doc: MetadataDocument,
  { allowed, devicePairing = 'off' }: DocumentUse,
): { usable: string[]; unusable: DroppedValue[] } {
  const why =
    devicePairing === 'off'
      ? 'device pairing is off here (DEVICE_PAIRING=off)'
      : 'device pairing needs an operator to allow this client_id (school-auth clients allow-cimd)';
  const unusable: DroppedValue[] = [];
  const usable = keepOnly(
    'grant_types',
    doc.grant_types ?? GRANT_TYPES,
    (grant) =>
      grant !== DEVICE_CODE_GRANT_TYPE || documentMayPairDevices(devicePairing, allowed) ? undefined : why,
    unusable,
  );
  return { usable, unusable };
}

/** What `doc` lists that its client does not get for `use`: grant types, then redirect URIs. */
export function unusableForUse(doc: MetadataDocument, use: DocumentUse): DroppedValue[] {
  return [...grantUsability(doc, use).unusable, ...redirectUsability(doc, use.allowed).unusable];
}

/**
 * The client oidc-provider loads for a checked document. `use.allowed`: an operator allowed this
 * client_id URL (its `https` redirect URIs, and device pairing under `integrations`).
 */
export function toClientMetadata(doc: MetadataDocument, use: DocumentUse): ClientMetadata {
  const httpsAllowed = use.allowed;
  const redirectUris = redirectUsability(doc, httpsAllowed).usable;
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
      grant_types: grantUsability(doc, use).usable,
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      // Loopback-only clients are native apps, as in open registration (any-port matching); a client
      // with fixed https callbacks is a web app, whose consent is remembered.
      application_type: redirectUris.every(isLoopbackRedirectUri) ? 'native' : 'web',
      dpop_bound_access_tokens: doc.dpop_bound_access_tokens,
    }).filter(([, v]) => v !== undefined),
  ) as ClientMetadata;
}
