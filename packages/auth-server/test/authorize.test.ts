/**
 * Refusals at GET /oauth/authorize against the real server. An error the client can safely receive
 * is a redirect to its registered redirect URI carrying `error`, `state` and `iss` (RFC 9207); an
 * error about the client or the redirect URI itself is an HTML page, never a redirect.
 */
import { describe, expect, it } from '@jest/globals';
import { ADMIN, authServerForFile } from '../../../test-support/auth-server.js';
import {
  authorizeInBrowser,
  checkboxValues,
  formAction,
  formFields,
  FormBrowser,
} from '../../../test-support/form-browser.js';
import {
  authorizationUrl,
  codeExchange,
  expectOAuthError,
  get,
  introspect,
  newState,
  obtainCode,
  pkce,
  REDIRECT,
  publicAndConfidentialForFile,
  tokenRequest,
  type HttpResult,
} from './oauth-http.js';

const auth = authServerForFile();
const [client, confidential] = publicAndConfidentialForFile(auth);

/** The parameters of a valid authorization request for `client`, with `state`. */
function validParams(
  state: string,
  overrides: Record<string, string | undefined> = {},
): Record<string, string> {
  const params: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: REDIRECT,
    scope: 'openid courses:read',
    state,
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
    ...overrides,
  };
  return Object.fromEntries(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined));
}

function authorize(params: Record<string, string>): Promise<HttpResult> {
  return get(authorizationUrl(auth, params), { accept: 'text/html' });
}

/** Asserts a redirect to exactly `REDIRECT` with the error in `where` (query or fragment), `state` and `iss`. */
function expectErrorRedirect(
  res: HttpResult,
  error: string,
  state: string,
  where: 'query' | 'fragment' = 'query',
): void {
  expect([302, 303]).toContain(res.status);
  const location = new URL(res.headers.get('location') ?? 'about:blank');
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
  const params = new URLSearchParams(where === 'query' ? location.search : location.hash.slice(1));
  const other = new URLSearchParams(where === 'query' ? location.hash.slice(1) : location.search);
  expect({
    error: params.get('error'),
    state: params.get('state'),
    iss: params.get('iss'),
    code: params.get('code'),
  }).toEqual({ error, state, iss: auth.issuer, code: null });
  expect(params.get('error_description')).toEqual(expect.any(String));
  expect([...other.keys()]).toEqual([]);
}

/** Asserts an HTML error page naming `error`, with no redirect anywhere. */
function expectErrorPage(res: HttpResult, error: string): void {
  expect(res.status).toBe(400);
  expect(res.headers.get('location')).toBeNull();
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.text).toContain(`<code>${error}</code>`);
  expect(res.text).not.toMatch(/\n\s+at |node_modules|\.[jt]s:\d+/);
}

describe('GET /oauth/authorize refuses missing or weak PKCE by redirecting invalid_request', () => {
  it.each([
    ['without code_challenge', { code_challenge: undefined, code_challenge_method: undefined }],
    ['without code_challenge but with a method', { code_challenge: undefined }],
    ['with code_challenge_method=plain', { code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }],
    ['with a code_challenge shorter than 43 characters', { code_challenge: 'abc' }],
    ['with a code_challenge longer than 128 characters', { code_challenge: 'a'.repeat(129) }],
    [
      'with a code_challenge containing characters outside base64url',
      { code_challenge: `${'a'.repeat(42)}+` },
    ],
    ['with a code_challenge but no code_challenge_method', { code_challenge_method: undefined }],
    ['with an unknown code_challenge_method', { code_challenge_method: 'S512' }],
  ])(
    'refuses a request %s with a redirect carrying invalid_request, state and iss',
    async (_what, overrides) => {
      const state = newState();
      expectErrorRedirect(await authorize(validParams(state, overrides)), 'invalid_request', state);
    },
  );

  it('requires PKCE from a confidential client too', async () => {
    const state = newState();
    const res = await authorize(
      validParams(state, {
        client_id: confidential.clientId,
        code_challenge: undefined,
        code_challenge_method: undefined,
      }),
    );
    expectErrorRedirect(res, 'invalid_request', state);
  });
});

describe('GET /oauth/authorize refuses other bad requests from a known client by redirecting', () => {
  it('refuses response_type=token with unsupported_response_type in the fragment, with state and iss', async () => {
    const state = newState();
    const res = await authorize(validParams(state, { response_type: 'token' }));
    expectErrorRedirect(res, 'unsupported_response_type', state, 'fragment');
  });

  it('refuses response_type=id_token with unsupported_response_type, with state and iss', async () => {
    const state = newState();
    const res = await authorize(validParams(state, { response_type: 'id_token', nonce: 'n-0S6_WzA2Mj' }));
    expectErrorRedirect(res, 'unsupported_response_type', state, 'fragment');
  });

  it('refuses a resource other than the issuer with invalid_target, with state and iss', async () => {
    const state = newState();
    const res = await authorize(validParams(state, { resource: 'https://api.other.example/' }));
    expectErrorRedirect(res, 'invalid_target', state);
  });

  it('answers prompt=none without a session with login_required, with state and iss', async () => {
    const state = newState();
    expectErrorRedirect(await authorize(validParams(state, { prompt: 'none' })), 'login_required', state);
  });

  it('refuses prompt=none combined with another prompt with invalid_request, with state and iss', async () => {
    const state = newState();
    const res = await authorize(validParams(state, { prompt: 'none login' }));
    expectErrorRedirect(res, 'invalid_request', state);
  });

  it('refuses a resource that only extends the issuer with invalid_target', async () => {
    const state = newState();
    const res = await authorize(validParams(state, { resource: `${auth.issuer}/api/v1` }));
    expectErrorRedirect(res, 'invalid_target', state);
  });

  it('sends access_denied back with state and iss when the admin denies consent', async () => {
    const state = newState();
    const callback = await authorizeInBrowser(
      new FormBrowser(auth.issuer),
      authorizationUrl(auth, validParams(state)),
      { ...ADMIN, decision: 'deny' },
    );
    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT);
    expect({
      error: callback.searchParams.get('error'),
      state: callback.searchParams.get('state'),
      iss: callback.searchParams.get('iss'),
      code: callback.searchParams.get('code'),
    }).toEqual({ error: 'access_denied', state, iss: auth.issuer, code: null });
  });
});

describe('GET /oauth/authorize shows an error page, never a redirect, when the client or redirect URI is wrong', () => {
  it('answers an unknown client_id with a 400 HTML page and no Location header', async () => {
    expectErrorPage(
      await authorize(validParams(newState(), { client_id: 'no-such-client' })),
      'invalid_client',
    );
  });

  it('answers a missing client_id with a 400 HTML page and no Location header', async () => {
    expectErrorPage(await authorize(validParams(newState(), { client_id: undefined })), 'invalid_request');
  });

  it.each([
    ['another path on the registered host and port', 'http://127.0.0.1:53682/other'],
    ['the registered path with a query added', `${REDIRECT}?next=/admin`],
    ['localhost instead of the registered 127.0.0.1', 'http://localhost:53682/callback'],
    ['[::1] instead of the registered 127.0.0.1', 'http://[::1]:53682/callback'],
    ['https on the registered host', 'https://127.0.0.1:53682/callback'],
    ['a remote host', 'https://attacker.example/callback'],
  ])(
    'answers an unregistered redirect_uri (%s) with a 400 HTML page and no Location header',
    async (_w, uri) => {
      expectErrorPage(
        await authorize(validParams(newState(), { redirect_uri: uri })),
        'invalid_redirect_uri',
      );
    },
  );

  it('answers a missing redirect_uri with a 400 HTML page and no Location header', async () => {
    expectErrorPage(await authorize(validParams(newState(), { redirect_uri: undefined })), 'invalid_request');
  });
});

describe('GET /oauth/authorize accepts the registered loopback redirect URI on any port', () => {
  it('serves the login page for the registered redirect URI on another port (RFC 8252 §7.3)', async () => {
    const browser = new FormBrowser(auth.issuer);
    const page = await browser.follow(
      authorizationUrl(auth, validParams(newState(), { redirect_uri: 'http://127.0.0.1:61000/callback' })),
    );
    expect(page.status).toBe(200);
    expect(formAction(page.body, '/login')).toEqual(expect.any(String));
  });

  it('issues a code to the other port, which only that exact redirect_uri can redeem', async () => {
    const issued = await obtainCode(auth, client, {
      scope: 'openid',
      redirectUri: 'http://127.0.0.1:61000/callback',
    });
    const registeredPort = await tokenRequest(auth, {
      ...codeExchange(client, issued),
      redirect_uri: REDIRECT,
    });
    expectOAuthError(registeredPort, 400, 'invalid_grant');
    const res = await tokenRequest(auth, codeExchange(client, issued));
    expect(res.status).toBe(200);
  });
});

describe('GET /oauth/authorize with scopes the server does not define', () => {
  it.each([
    ['only scopes the server does not define', 'admin courses:delete', false],
    ['resource=<issuer> and only scopes the server does not define', 'courses:delete', true],
  ])(
    'refuses a request with %s with a redirect carrying invalid_scope, state and iss',
    async (_w, scope, bound) => {
      const state = newState();
      const res = await authorize(validParams(state, { scope, resource: bound ? auth.issuer : undefined }));
      expectErrorRedirect(res, 'invalid_scope', state);
    },
  );

  it('never grants an unknown scope: the token carries only the defined scopes', async () => {
    const issued = await obtainCode(auth, client, { scope: 'openid courses:read courses:delete admin' });
    const res = await tokenRequest(auth, codeExchange(client, issued));
    expect(res.status).toBe(200);
    expect(String(res.body?.scope).split(' ').sort()).toEqual(['courses:read', 'openid']);
    const info = await introspect(auth, String(res.body?.access_token));
    expect(info.body).toMatchObject({ active: true, scope: expect.any(String) });
    expect(String(info.body?.scope).split(' ').sort()).toEqual(['courses:read', 'openid']);
  });
});

describe('GET /oauth/authorize without scope', () => {
  /**
   * Signs in on an authorization request of `client` whose `scope` is `scope` (left out when
   * undefined); the consent page, and what the exchange needs.
   */
  async function consentFor(scope: string | undefined, resource?: string) {
    const browser = new FormBrowser(auth.issuer);
    const { verifier, challenge } = pkce();
    const url = authorizationUrl(
      auth,
      validParams(newState(), { scope, resource, code_challenge: challenge }),
    );
    expect(new URL(url).searchParams.has('scope')).toBe(scope !== undefined);
    let page = await browser.follow(url);
    page = await browser.submit(page, '/login', { email: ADMIN.email, password: ADMIN.password });
    expect(formAction(page.body, '/confirm')).toEqual(expect.any(String));
    return { browser, page, verifier };
  }

  it.each([
    ['no scope parameter', undefined],
    ['an empty scope, which RFC 6749 §3.1 treats as omitted', ''],
  ])(
    'with %s, asks for the baseline school:read account:read, and the token carries it',
    async (_w, scope) => {
      const { browser, page, verifier } = await consentFor(scope);
      // The consent page asks for exactly the baseline, both ticked, in words a person reads.
      expect(checkboxValues(page.body, 'scope').sort()).toEqual(['account:read', 'school:read']);
      expect(
        formFields(page.body, '/confirm')
          .filter(([name]) => name === 'scope')
          .map(([, v]) => v)
          .sort(),
      ).toEqual(['account:read', 'school:read']);
      expect(page.body).toContain('See your school’s school');
      expect(page.body).toContain('See your school’s account');
      const back = await browser.submit(page, '/confirm');
      const code = new URL(back.location!).searchParams.get('code')!;
      const res = await tokenRequest(auth, codeExchange(client, { code, verifier, redirectUri: REDIRECT }));
      expect(res.status).toBe(200);
      expect(String(res.body?.scope).split(' ').sort()).toEqual(['account:read', 'school:read']);
      const info = await introspect(auth, String(res.body?.access_token));
      expect(info.body).toMatchObject({ active: true });
      expect(String(info.body?.scope).split(' ').sort()).toEqual(['account:read', 'school:read']);
    },
  );

  it('with resource=<issuer>, gives a token bound to the API with the baseline', async () => {
    const { browser, page, verifier } = await consentFor(undefined, auth.issuer);
    expect(checkboxValues(page.body, 'scope').sort()).toEqual(['account:read', 'school:read']);
    const back = await browser.submit(page, '/confirm');
    const code = new URL(back.location!).searchParams.get('code')!;
    const res = await tokenRequest(auth, {
      ...codeExchange(client, { code, verifier, redirectUri: REDIRECT }),
      resource: auth.issuer,
    });
    expect(res.status).toBe(200);
    const info = await introspect(auth, String(res.body?.access_token));
    expect(info.body).toMatchObject({ active: true, aud: auth.issuer });
    expect(String(info.body?.scope).split(' ').sort()).toEqual(['account:read', 'school:read']);
  });
});

describe('GET /oauth/authorize with a stored grant that is not the request’s', () => {
  /** Authorizes `client` through `browser` (signing in and consenting as asked); the grant behind the code. */
  async function consentOnce(browser: FormBrowser): Promise<{ grantId: string }> {
    const { verifier, challenge } = pkce();
    const callback = await authorizeInBrowser(
      browser,
      authorizationUrl(auth, validParams(newState(), { code_challenge: challenge })),
      ADMIN,
    );
    const code = callback.searchParams.get('code');
    expect(code).toEqual(expect.any(String));
    const res = await tokenRequest(
      auth,
      codeExchange(client, { code: code!, verifier, redirectUri: REDIRECT }),
    );
    expect(res.status).toBe(200);
    const token = await auth.running.provider.AccessToken.find(String(res.body?.access_token));
    return { grantId: token!.grantId };
  }

  it.each([
    ['names another client', 'clientId'],
    ['names another account', 'accountId'],
  ] as const)(
    'asks for consent again, never a 500, when the session’s grant %s (storage written behind our back)',
    async (_what, field) => {
      const browser = new FormBrowser(auth.issuer);
      const first = await consentOnce(browser);
      const grant = await auth.running.provider.Grant.find(first.grantId);
      const accountId = grant!.accountId;
      const tampered = field === 'clientId' ? confidential.clientId : 'someone-else';
      grant![field] = tampered;
      await grant!.save();

      const page = await browser.follow(authorizationUrl(auth, validParams(newState())));
      expect(page.status).toBe(200);
      expect(formAction(page.body, '/confirm')).toEqual(expect.any(String));
      // Consenting makes a grant of this client and account; the tampered one is not reused.
      const second = await consentOnce(browser);
      expect(second.grantId).not.toBe(first.grantId);
      const made = await auth.running.provider.Grant.find(second.grantId);
      expect({ clientId: made?.clientId, accountId: made?.accountId }).toEqual({
        clientId: client.clientId,
        accountId,
      });
      expect((await auth.running.provider.Grant.find(first.grantId))?.[field]).toBe(tampered);
    },
  );
});
