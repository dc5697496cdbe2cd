/**
 * The refusal suites' view of the OAuth flow (test-support/oauth-flow.ts, raw HTTP, no OAuth library
 * in between, so malformed and forbidden requests can be sent as they are), signed in as the test
 * auth servers' seeded admin, and one assertion, {@link expectOAuthError}, that pins every JSON error
 * to RFC 6749 §5.2's shape.
 */
import { beforeAll, expect } from '@jest/globals';
import { ADMIN, INTROSPECTOR, type TestAuthServer } from '../../../test-support/auth-server.js';
import type { AuditEventType } from '../src/audit/audit-log.js';
import { formAction, type FormBrowser, type Page } from '../../../test-support/form-browser.js';
import * as flow from '../../../test-support/oauth-flow.js';
import type {
  FlowOptions,
  HttpResult,
  IssuedCode,
  Issuer,
  OAuthClient,
} from '../../../test-support/oauth-flow.js';

export {
  authorizationUrl,
  codeExchange,
  credentials,
  get,
  newState,
  pkce,
  postForm,
  postJson,
  REDIRECT,
  register,
  registerClient,
  registerPublicAndConfidential,
  tokenRequest,
  type HttpResult,
} from '../../../test-support/oauth-flow.js';

/** A client as the suites use it: its id and, for confidential clients, its secret. */
export type TestClient = OAuthClient;

/** A token response as the suites get it: the server issues a refresh token with every code. */
export type Tokens = flow.Tokens & { refresh_token: string };

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

/**
 * Follows an authorization request of `client` for `scope` (PKCE S256, a state, `resource` when given)
 * in `browser`, signing in as `who` (the seeded admin unless said) when asked, to the consent page;
 * the page and the PKCE verifier its code will need.
 */
export async function openConsent(
  auth: Issuer,
  browser: FormBrowser,
  client: OAuthClient,
  scope: string,
  resource?: string,
  who: { email: string; password: string } = ADMIN,
): Promise<{ page: Page; verifier: string }> {
  const { verifier, challenge } = flow.pkce();
  let page = await browser.follow(
    flow.authorizationUrl(auth, {
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: flow.REDIRECT,
      scope,
      state: flow.newState(),
      code_challenge: challenge,
      code_challenge_method: 'S256',
      ...(resource ? { resource } : {}),
    }),
  );
  if (formAction(page.body, '/login')) {
    page = await browser.submit(page, '/login', { email: who.email, password: who.password });
  }
  expect(formAction(page.body, '/confirm')).toBeDefined();
  return { page, verifier };
}

/** Runs authorize → login → consent for `client` as the seeded admin; checks `state` and `iss`. */
export function obtainCode(
  auth: Issuer,
  client: OAuthClient,
  opts: Omit<FlowOptions, 'account'>,
): Promise<IssuedCode> {
  return flow.obtainCode(auth, client, { account: ADMIN, ...opts });
}

/** Obtains tokens for `client` through the whole authorization-code flow as the seeded admin. */
export function signIn(
  auth: Issuer,
  client: OAuthClient,
  opts: Omit<FlowOptions, 'account'>,
): Promise<Tokens> {
  return flow.signIn(auth, client, { account: ADMIN, ...opts }) as Promise<Tokens>;
}

/** Introspects `token`, as the static introspection client unless `as` says otherwise. */
export function introspect(
  auth: Issuer,
  token: string,
  as: Record<string, string> = {
    client_id: INTROSPECTOR.clientId,
    client_secret: INTROSPECTOR.clientSecret,
  },
): Promise<HttpResult> {
  return flow.postForm(`${auth.issuer}/api/oauth/introspect`, { token, ...as });
}

/** Whether the static introspection client sees `token` as active. */
export async function isActive(auth: Issuer, token: string): Promise<boolean> {
  const res = await introspect(auth, token);
  expect(res.status).toBe(200);
  return res.body?.active === true;
}

/** The refresh grant of `refreshToken` by the public client `clientId`: the token endpoint's answer. */
export function refreshAs(auth: Issuer, clientId: string, refreshToken: string): Promise<HttpResult> {
  return flow.tokenRequest(auth, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: clientId,
  });
}

/** POSTs to the revocation endpoint. */
export function revoke(auth: Issuer, form: Record<string, string>): Promise<HttpResult> {
  return flow.postForm(`${auth.issuer}/api/oauth/revoke`, form);
}

/**
 * Tokens of `client`, signed in as the seeded admin before the file's tests (after the hooks declared
 * before this call); the object is filled in then.
 */
export function signedInForFile(
  auth: Issuer,
  client: OAuthClient,
  opts: Omit<FlowOptions, 'account'>,
): Tokens {
  const tokens = {} as Tokens;
  beforeAll(async () => {
    Object.assign(tokens, await signIn(auth, client, opts));
  });
  return tokens;
}

/**
 * A public and a confidential client registered on the file's `auth` before its tests (after the
 * hooks declared before this call); both objects are filled in when registered.
 */
export function publicAndConfidentialForFile(auth: Issuer): [TestClient, TestClient] {
  const clients: [TestClient, TestClient] = [{} as TestClient, {} as TestClient];
  beforeAll(async () => {
    const registered = await flow.registerPublicAndConfidential(auth);
    clients.forEach((client, i) => Object.assign(client, registered[i]));
  });
  return clients;
}

/**
 * The audit events of `type` about `clientId` whose details say `details`, once there is one (the
 * log is written in batches): polled every 100 ms for up to 5 s, empty if none came.
 */
export async function auditedEvents(
  auth: Pick<TestAuthServer, 'running'>,
  type: AuditEventType,
  clientId: string,
  details: RegExp,
): Promise<unknown[]> {
  let events: unknown[] = [];
  for (let tries = 0; tries < 50 && events.length === 0; tries++) {
    const all = await auth.running.audit.query({ clientId, type });
    events = all.filter((e) => details.test(JSON.stringify(e.details)));
    if (events.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return events;
}
