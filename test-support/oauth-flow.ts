/**
 * The OAuth flow as a client runs it, over plain HTTP and one way for every caller (the auth server's
 * suites, the token source of the resource API's and end-to-end suites, the bench): dynamic
 * registration, authorization code + PKCE through the real login and consent pages (a
 * {@link FormBrowser}), the code exchange. No OAuth library in between, so a suite can also send what
 * no library would; a step that goes wrong throws with what the server answered.
 */
import { createHash, randomBytes } from 'node:crypto';
import { authorizeInBrowser, FormBrowser } from './form-browser.js';

/** The loopback redirect URI clients register (RFC 8252 §7.3; nothing listens; scripts/fuzz uses it). */
export const REDIRECT = 'http://127.0.0.1:53682/callback';

/** Where the flow runs: an issuer's origin (a test auth server, or the edge of a whole stack). */
export interface Issuer {
  issuer: string;
}

/** A registered client: its id and, for a confidential client, its secret. */
export interface OAuthClient {
  clientId: string;
  clientSecret?: string;
}

/** Who signs in on the login page. */
export interface Account {
  email: string;
  password: string;
}

/** A response with its body read as text and, when it parses, as JSON. */
export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  body: Record<string, unknown> | undefined;
}

async function read(res: Response): Promise<HttpResult> {
  const text = await res.text();
  let body: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object') body = parsed as Record<string, unknown>;
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, text, body };
}

/** POSTs a JSON (or, given a string, raw) body. */
export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<HttpResult> {
  const type = { 'content-type': 'application/json', accept: 'application/json' };
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  return read(await fetch(url, { method: 'POST', headers: { ...type, ...headers }, body: payload }));
}

/** POSTs an `application/x-www-form-urlencoded` body. */
export async function postForm(
  url: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<HttpResult> {
  const type = { 'content-type': 'application/x-www-form-urlencoded' };
  const body = new URLSearchParams(form).toString();
  return read(await fetch(url, { method: 'POST', headers: { ...type, ...headers }, body }));
}

/** GETs a URL without following redirects. */
export async function get(url: string, headers: Record<string, string> = {}): Promise<HttpResult> {
  return read(await fetch(url, { redirect: 'manual', headers }));
}

/** Sends registration metadata to the registration endpoint. */
export function register(auth: Issuer, metadata: unknown): Promise<HttpResult> {
  return postJson(`${auth.issuer}/api/oauth/register`, metadata);
}

/** Registers a client redirecting to {@link REDIRECT}; `metadata` adds or overrides (e.g. its auth method). */
export async function registerClient(
  auth: Issuer,
  metadata: Record<string, unknown> = {},
): Promise<OAuthClient> {
  const res = await register(auth, { client_name: 'test client', redirect_uris: [REDIRECT], ...metadata });
  if (res.status !== 201) throw new Error(`registration answered ${res.status}: ${res.text}`);
  const { client_id, client_secret } = res.body as { client_id: string; client_secret?: string };
  return client_secret === undefined
    ? { clientId: client_id }
    : { clientId: client_id, clientSecret: client_secret };
}

/** Registers a public client and a client_secret_post one, in that order. */
export async function registerPublicAndConfidential(auth: Issuer): Promise<[OAuthClient, OAuthClient]> {
  return [
    await registerClient(auth),
    await registerClient(auth, { token_endpoint_auth_method: 'client_secret_post' }),
  ];
}

/** The client-authentication parameters of `client` (client_secret_post, or none for a public client). */
export function credentials(client: OAuthClient): Record<string, string> {
  return client.clientSecret === undefined
    ? { client_id: client.clientId }
    : { client_id: client.clientId, client_secret: client.clientSecret };
}

/** A fresh PKCE pair (RFC 7636, S256). */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** A random `state` value. */
export function newState(): string {
  return randomBytes(12).toString('base64url');
}

/** The authorization endpoint URL with `params`. */
export function authorizationUrl(auth: Issuer, params: Record<string, string>): string {
  return `${auth.issuer}/oauth/authorize?${new URLSearchParams(params).toString()}`;
}

/**
 * An authorization URL of a code request with `params` (client_id, redirect_uri, scope, …), a fresh
 * `state` and PKCE (S256); the state and the verifier that redeems its code.
 */
export function codeRequest(
  auth: Issuer,
  params: Record<string, string>,
): { url: string; verifier: string; state: string } {
  const { verifier, challenge } = pkce();
  const state = newState();
  const url = authorizationUrl(auth, {
    response_type: 'code',
    ...params,
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  return { url, verifier, state };
}

/** What one run of the flow asks for. */
export interface FlowOptions {
  scope: string;
  account: Account;
  /** RFC 8707 resource indicator, sent with the authorization and the code exchange. */
  resource?: string;
  redirectUri?: string;
  /** The browser that signs in; one that keeps its session goes straight through (default: a new one). */
  browser?: FormBrowser;
  /** The scopes the admin leaves ticked on the consent page (default: every one offered). */
  approve?: string[] | 'as shown';
}

/** A code obtained through the real login and consent pages, with what the exchange needs. */
export interface IssuedCode {
  code: string;
  verifier: string;
  redirectUri: string;
}

/** Runs authorize → login → consent for `client`; checks `state` and `iss` on the way back. */
export async function obtainCode(auth: Issuer, client: OAuthClient, opts: FlowOptions): Promise<IssuedCode> {
  const redirectUri = opts.redirectUri ?? REDIRECT;
  const { url, verifier, state } = codeRequest(auth, {
    client_id: client.clientId,
    redirect_uri: redirectUri,
    scope: opts.scope,
    ...(opts.resource ? { resource: opts.resource } : {}),
  });
  const browser = opts.browser ?? new FormBrowser(auth.issuer);
  const callback = await authorizeInBrowser(browser, url, { ...opts.account, approve: opts.approve });
  const back = { state: callback.searchParams.get('state'), iss: callback.searchParams.get('iss') };
  if (back.state !== state || back.iss !== auth.issuer) {
    throw new Error(`the redirect carries state ${back.state} and iss ${back.iss}: ${callback.href}`);
  }
  const code = callback.searchParams.get('code');
  if (!code) throw new Error(`no code in ${callback.href}`);
  return { code, verifier, redirectUri };
}

/** POSTs to the token endpoint. */
export function tokenRequest(
  auth: Issuer,
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<HttpResult> {
  return postForm(`${auth.issuer}/api/oauth/token`, form, headers);
}

/** The form of an authorization_code exchange of `issued` by `client`. */
export function codeExchange(client: OAuthClient, issued: IssuedCode): Record<string, string> {
  return {
    grant_type: 'authorization_code',
    code: issued.code,
    redirect_uri: issued.redirectUri,
    code_verifier: issued.verifier,
    ...credentials(client),
  };
}

/** A token response. */
export interface Tokens {
  access_token: string;
  refresh_token?: string;
  id_token?: string;
  scope?: string;
  expires_in?: number;
}

/** A grant at the token endpoint as `client` (`params` plus its credentials); throws unless 200. */
export async function requestTokens(
  auth: Issuer,
  client: OAuthClient,
  params: Record<string, string>,
): Promise<Tokens> {
  const res = await tokenRequest(auth, { ...params, ...credentials(client) });
  if (res.status !== 200) throw new Error(`the token endpoint answered ${res.status}: ${res.text}`);
  return res.body as unknown as Tokens;
}

/** The whole flow: a code through the pages, then its exchange (with the resource, if any). */
export async function signIn(auth: Issuer, client: OAuthClient, opts: FlowOptions): Promise<Tokens> {
  const form = codeExchange(client, await obtainCode(auth, client, opts));
  return requestTokens(auth, client, opts.resource ? { ...form, resource: opts.resource } : form);
}
