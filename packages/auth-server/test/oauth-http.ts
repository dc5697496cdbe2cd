/**
 * Raw-HTTP helpers for the refusal suites. They speak to the real server exactly as a client would
 * (no OAuth library in between, so malformed and forbidden requests can be sent as they are), and
 * one assertion, {@link expectOAuthError}, pins every JSON error to RFC 6749 §5.2's shape.
 */
import { createHash, randomBytes } from 'node:crypto';
import { expect } from '@jest/globals';
import { ADMIN, INTROSPECTOR, type TestAuthServer } from '../../../test-support/auth-server.js';
import { authorizeInBrowser, FormBrowser } from '../../../test-support/form-browser.js';

/** The loopback redirect URI the suites register (RFC 8252 §7.3). */
export const REDIRECT = 'http://127.0.0.1:53682/callback';

/** A client as the suites use it: its id and, for confidential clients, its secret. */
export interface TestClient {
  clientId: string;
  clientSecret?: string;
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

/**
 * Asserts an RFC 6749 §5.2 error: the status, a JSON body of exactly `{error, error_description}` (plus
 * the `extra` members named, e.g. the `scope` oidc-provider adds to `invalid_scope`), no stack trace.
 */
export function expectOAuthError(
  res: HttpResult,
  status: number,
  error: string,
  extra: Record<string, unknown> = {},
): void {
  expect({ status: res.status, body: res.body }).toEqual({
    status,
    body: { error, error_description: expect.any(String), ...extra },
  });
  expect(res.headers.get('content-type')).toMatch(/^application\/json\b/);
  expect(res.text).not.toMatch(/\n\s+at |node_modules|\.[jt]s:\d+/);
}

/** POSTs a JSON (or, given a string, raw) body. */
export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<HttpResult> {
  return read(
    await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  );
}

/** POSTs an `application/x-www-form-urlencoded` body. */
export async function postForm(
  url: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<HttpResult> {
  return read(
    await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(form).toString(),
    }),
  );
}

/** GETs a URL without following redirects. */
export async function get(url: string, headers: Record<string, string> = {}): Promise<HttpResult> {
  return read(await fetch(url, { redirect: 'manual', headers }));
}

/** Sends registration metadata to the registration endpoint. */
export function register(auth: TestAuthServer, metadata: unknown): Promise<HttpResult> {
  return postJson(`${auth.issuer}/api/oauth/register`, metadata);
}

/** Registers a client (public unless `client_secret_post` is asked for) and returns its credentials. */
export async function registerClient(
  auth: TestAuthServer,
  metadata: Record<string, unknown> = {},
): Promise<TestClient> {
  const res = await register(auth, { client_name: 'Refusal suite', redirect_uris: [REDIRECT], ...metadata });
  expect(res.status).toBe(201);
  const { client_id, client_secret } = res.body as { client_id: string; client_secret?: string };
  return client_secret === undefined
    ? { clientId: client_id }
    : { clientId: client_id, clientSecret: client_secret };
}

/** The client-authentication parameters of `client` (client_secret_post or none). */
export function credentials(client: TestClient): Record<string, string> {
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
export function authorizationUrl(auth: TestAuthServer, params: Record<string, string>): string {
  return `${auth.issuer}/oauth/authorize?${new URLSearchParams(params).toString()}`;
}

/** A code obtained through the real login and consent pages, with what the exchange needs. */
export interface IssuedCode {
  code: string;
  verifier: string;
  redirectUri: string;
}

/** Runs authorize → login → consent for `client`; asserts `state` and `iss` on the way back. */
export async function obtainCode(
  auth: TestAuthServer,
  client: TestClient,
  opts: { scope: string; resource?: string; redirectUri?: string },
): Promise<IssuedCode> {
  const { verifier, challenge } = pkce();
  const state = newState();
  const redirectUri = opts.redirectUri ?? REDIRECT;
  const url = authorizationUrl(auth, {
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: redirectUri,
    scope: opts.scope,
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...(opts.resource ? { resource: opts.resource } : {}),
  });
  const callback = await authorizeInBrowser(new FormBrowser(auth.issuer), url, ADMIN);
  expect(callback.searchParams.get('state')).toBe(state);
  expect(callback.searchParams.get('iss')).toBe(auth.issuer);
  const code = callback.searchParams.get('code');
  if (!code) throw new Error(`no code in ${callback.href}`);
  return { code, verifier, redirectUri };
}

/** POSTs to the token endpoint. */
export function tokenRequest(
  auth: TestAuthServer,
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<HttpResult> {
  return postForm(`${auth.issuer}/api/oauth/token`, form, headers);
}

/** The form of an authorization_code exchange of `issued` by `client`. */
export function codeExchange(client: TestClient, issued: IssuedCode): Record<string, string> {
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
  refresh_token: string;
  scope?: string;
}

/** Obtains tokens for `client` through the whole authorization-code flow; asserts success. */
export async function signIn(
  auth: TestAuthServer,
  client: TestClient,
  opts: { scope: string; resource?: string },
): Promise<Tokens> {
  const issued = await obtainCode(auth, client, opts);
  const form = codeExchange(client, issued);
  const res = await tokenRequest(auth, opts.resource ? { ...form, resource: opts.resource } : form);
  expect(res.status).toBe(200);
  return res.body as unknown as Tokens;
}

/** Introspects `token`, as the static introspection client unless `as` says otherwise. */
export function introspect(
  auth: TestAuthServer,
  token: string,
  as: Record<string, string> = {
    client_id: INTROSPECTOR.clientId,
    client_secret: INTROSPECTOR.clientSecret,
  },
): Promise<HttpResult> {
  return postForm(`${auth.issuer}/api/oauth/introspect`, { token, ...as });
}

/** Whether the static introspection client sees `token` as active. */
export async function isActive(auth: TestAuthServer, token: string): Promise<boolean> {
  const res = await introspect(auth, token);
  expect(res.status).toBe(200);
  return res.body?.active === true;
}

/** POSTs to the revocation endpoint. */
export function revoke(auth: TestAuthServer, form: Record<string, string>): Promise<HttpResult> {
  return postForm(`${auth.issuer}/api/oauth/revoke`, form);
}
