/**
 * The login and consent pages (docs/decisions.md) over real HTTP with cookies, as a browser without
 * JavaScript uses them: headers, CSRF, escaping, the generic login error, deny, replays and expiry.
 */
import { createHash, randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { ADMIN, authServerForFile } from '../../../test-support/auth-server.js';
import {
  FormBrowser,
  formAction,
  inputValue,
  linkHref,
  type Page,
} from '../../../test-support/form-browser.js';

const PORT = 49152;
const REDIRECT = `http://127.0.0.1:${PORT}/cb`;
let clientId: string;

async function register(body: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${auth.issuer}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [REDIRECT], ...body }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { client_id: string }).client_id;
}

function authorizeUrl(client: string, state: string, scope = 'openid courses:read'): string {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: client,
    redirect_uri: REDIRECT,
    scope,
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  return `${auth.issuer}/oauth/authorize?${q.toString()}`;
}

async function loginPage(browser: FormBrowser, state = 'st-1', client = clientId): Promise<Page> {
  const page = await browser.follow(authorizeUrl(client, state));
  expect(page.status).toBe(200);
  return page;
}

async function consentPage(browser: FormBrowser, state = 'st-1', client = clientId): Promise<Page> {
  const page = await browser.submit(await loginPage(browser, state, client), '/login', {
    email: ADMIN.email,
    password: ADMIN.password,
  });
  expect(formAction(page.body, '/confirm')).toBeDefined();
  return page;
}

function expectPageHeaders(page: Page): void {
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  expect(page.headers.get('cache-control')).toBe('no-store');
  expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
  expect(page.headers.get('x-frame-options')).toBe('DENY');
  expect(page.headers.get('x-content-type-options')).toBe('nosniff');
  expect(page.headers.get('referrer-policy')).toBe('same-origin');
  // No inline script; only our own passkey scripts, loaded from this origin with this answer's nonce.
  const csp = page.headers.get('content-security-policy')!;
  const scripts = [...page.body.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/gi)];
  for (const [, attributes, content] of scripts) {
    expect(content).toBe('');
    expect(attributes).toMatch(/ src="\/oauth\/assets\/[\w.-]+\.js"/);
    const nonce = / nonce="([^"]+)"/.exec(attributes!)?.[1];
    expect(csp).toContain(`script-src 'nonce-${nonce}'`);
  }
  if (scripts.length === 0) expect(csp).not.toContain('script-src');
  // The one inline stylesheet is allowed by its hash, computed over exactly what is served.
  const style = /<style>([\s\S]*?)<\/style>/.exec(page.body)![1]!;
  const hash = createHash('sha256').update(style).digest('base64');
  expect(page.headers.get('content-security-policy')).toContain(`style-src 'sha256-${hash}'`);
}

const auth = authServerForFile();
beforeAll(async () => {
  clientId = await register({ client_name: 'Lesson Planner CLI' });
});

describe('the login page', () => {
  it('is a plain HTML form with a CSRF token, not cacheable and not frameable', async () => {
    const page = await loginPage(new FormBrowser(auth.issuer));
    expectPageHeaders(page);
    expect(inputValue(page.body, 'csrf')).toMatch(/^[\w-]{20,}$/);
    expect(page.body).toContain('<form method="post"');
    expect(page.body).toContain('Lesson Planner CLI');
  });

  it('escapes what the client declared about itself', async () => {
    const evil = await register({ client_name: '<img src=x onerror=alert(1)>"&' });
    const page = await loginPage(new FormBrowser(auth.issuer), 's', evil);
    expect(page.body).toContain('&lt;img src=x onerror=alert(1)&gt;&quot;&amp;');
    expect(page.body).not.toContain('<img src=x');
  });

  it('answers a wrong password and an unknown email with the same generic message', async () => {
    const browser = new FormBrowser(auth.issuer);
    const wrongPassword = await browser.submit(await loginPage(browser), '/login', {
      email: ADMIN.email,
      password: 'not it',
    });
    const browser2 = new FormBrowser(auth.issuer);
    const unknownEmail = await browser2.submit(await loginPage(browser2), '/login', {
      email: 'nobody@school.test',
      password: 'not it',
    });
    expect(wrongPassword.status).toBe(401);
    expect(unknownEmail.status).toBe(401);
    const message = (p: Page) => /<p class="error"[^>]*>([^<]*)<\/p>/.exec(p.body)?.[1];
    expect(message(wrongPassword)).toBe('The email or password is not right.');
    expect(message(unknownEmail)).toBe(message(wrongPassword));
    expectPageHeaders(wrongPassword);
  });

  it('refuses a submission without the CSRF token with 403 and signs nobody in', async () => {
    const browser = new FormBrowser(auth.issuer);
    const page = await loginPage(browser);
    const action = formAction(page.body, '/login')!;
    const res = await browser.request(action, { form: { email: ADMIN.email, password: ADMIN.password } });
    expect(res.status).toBe(403);
    expect(res.location).toBeUndefined();
    expect(res.body).toContain('csrf_check_failed');
  });

  it('refuses a submission from another origin with 403 even with the token', async () => {
    const browser = new FormBrowser(auth.issuer);
    const page = await loginPage(browser);
    const res = await browser.request(formAction(page.body, '/login')!, {
      form: { csrf: inputValue(page.body, 'csrf')!, email: ADMIN.email, password: ADMIN.password },
      headers: { origin: 'http://evil.example' },
    });
    expect(res.status).toBe(403);
  });
});

describe('the consent page', () => {
  it('shows the self-declared client name, the loopback host and port, and each scope in plain words', async () => {
    const page = await consentPage(new FormBrowser(auth.issuer));
    expectPageHeaders(page);
    expect(page.body).toContain('Lesson Planner CLI');
    expect(page.body).toContain('Self-declared name: the app chose this name itself');
    expect(page.body).toContain(`an app on this computer (127.0.0.1, port ${PORT})`);
    expect(page.body).toContain('See your school’s courses');
    expect(page.body).toContain('Confirm who you are');
    expect(page.headers.get('content-security-policy')).toContain(
      `form-action 'self' http://127.0.0.1:${PORT}`,
    );
  });

  it('sends access_denied with state and iss straight back to the client on deny, with no page between', async () => {
    const browser = new FormBrowser(auth.issuer);
    const page = await consentPage(browser, 'deny-state');
    const posted = await browser.request(formAction(page.body, '/abort')!, {
      form: { csrf: inputValue(page.body, 'csrf')! },
    });
    expect(posted.status).toBe(303);
    // The resumption at the authorization endpoint is the only hop before the client's redirect URI.
    const back = await browser.request(posted.location!);
    const to = new URL(back.location!);
    expect(`${to.origin}${to.pathname}`).toBe(REDIRECT);
    expect(to.searchParams.get('error')).toBe('access_denied');
    expect(to.searchParams.get('state')).toBe('deny-state');
    expect(to.searchParams.get('iss')).toBe(auth.issuer);
    expect(to.searchParams.get('code')).toBeNull();
  });

  it('sends a code with state and iss on allow, and shows a clear page when the form is replayed', async () => {
    const browser = new FormBrowser(auth.issuer);
    const page = await consentPage(browser, 'allow-state');
    // The form post is answered 303 See Other, never 307/308, which would re-post the form (RFC 9700 §4.12).
    const posted = await browser.request(formAction(page.body, '/confirm')!, {
      form: { csrf: inputValue(page.body, 'csrf')!, scope: 'courses:read' },
    });
    expect(posted.status).toBe(303);
    const back = await browser.follow(posted.location!);
    const to = new URL(back.location!);
    expect(to.searchParams.get('code')).toEqual(expect.any(String));
    expect(to.searchParams.get('state')).toBe('allow-state');
    expect(to.searchParams.get('iss')).toBe(auth.issuer);

    const replay = await browser.request(formAction(page.body, '/confirm')!, {
      form: { csrf: inputValue(page.body, 'csrf')!, scope: 'courses:read' },
    });
    expect(replay.status).toBe(400);
    expect(replay.location).toBeUndefined();
    expect(replay.body).toContain('interaction_expired');
  });
});

describe('an expired or unknown interaction', () => {
  it('shows a clear page, never a redirect', async () => {
    const res = await new FormBrowser(auth.issuer).request(
      `/oauth/interaction/${randomBytes(16).toString('base64url')}`,
    );
    expect(res.status).toBe(400);
    expect(res.location).toBeUndefined();
    expect(res.body).toContain('This sign-in page has expired');
    expectPageHeaders(res);
  });
});

describe('what a person sees of the app', () => {
  it('isolates the name in <bdi> and says in visible words, set no quieter than the name, that it is self-declared', async () => {
    const page = await consentPage(new FormBrowser(auth.issuer));
    expect(page.body).toContain('<span class="app-name"><bdi>Lesson Planner CLI</bdi></span>');
    expect(page.body).toMatch(/<span class="kind kind-open">Self-declared name:/);
    expect(page.body).not.toMatch(/<strong>\s*<bdi>Lesson Planner CLI/); // the name is not bold
    expect(page.body).not.toMatch(/title="/); // nothing said only in a tooltip
    const style = /<style>([\s\S]*?)<\/style>/.exec(page.body)![1]!;
    expect(style).toMatch(/\.app-name\{display:block;font-size:1rem\}/);
    expect(style).toMatch(/\.kind\{display:block;font-size:1rem;font-weight:600/);
  });

  it('groups and flags the scopes that create, change or delete data', async () => {
    const browser = new FormBrowser(auth.issuer);
    let page = await browser.follow(authorizeUrl(clientId, 'w', 'openid courses:read coupons:write'));
    page = await browser.submit(page, '/login', { email: ADMIN.email, password: ADMIN.password });
    const writes = /<ul class="scopes choices writes">([\s\S]*?)<\/ul>/.exec(page.body)?.[1];
    expect(writes).toContain('coupons:write');
    expect(writes).not.toContain('courses:read');
    expect(page.body).toContain('<span class="flag">Changes data</span>');
  });

  it('points to Connected apps to take access back, not to revoking tokens', async () => {
    const page = await consentPage(new FormBrowser(auth.issuer));
    expect(linkHref(page.body, 'Connected apps')).toBe('/oauth/account/apps');
    expect(page.body).not.toContain("revoking the app's tokens");
  });

  it('offers "Not you?", which ends the remembered session and asks the same request to sign in again', async () => {
    const browser = new FormBrowser(auth.issuer);
    const consent = await consentPage(browser, 'switch-state');
    expect(consent.body).toContain(ADMIN.email);
    const again = await browser.submit(consent, '/switch');
    expect(formAction(again.body, '/login')).toBeDefined(); // the login page, not the consent page
    expect(again.body).toContain('Lesson Planner CLI');
    // Signing in there goes on with the same request: its state comes back to the app.
    const consent2 = await browser.submit(again, '/login', { email: ADMIN.email, password: ADMIN.password });
    const posted = await browser.submit(consent2, '/confirm');
    expect(new URL(posted.location!).searchParams.get('state')).toBe('switch-state');
  });

  it('shows the request id on an error page, for a person to quote to support', async () => {
    const res = await new FormBrowser(auth.issuer).request(
      `/oauth/interaction/${randomBytes(16).toString('base64url')}`,
      {
        headers: { 'x-request-id': 'support-ref-1234' },
      },
    );
    expect(res.status).toBe(400);
    expect(res.body).toContain('<code class="ref">support-ref-1234</code>');
  });
});

describe('sign-out at the end_session_endpoint', () => {
  it('asks on a page of ours, signs out on confirmation, and keeps the apps’ access', async () => {
    const browser = new FormBrowser(auth.issuer);
    await browser.submit(await consentPage(browser, 'before-sign-out'), '/confirm');
    const question = await browser.follow('/oauth/session/end');
    expect(question.status).toBe(200);
    expectPageHeaders(question);
    expect(question.body).toContain('Sign out?');
    expect(question.body).toContain(ADMIN.email);
    const done = await browser.follow(formAction(question.body, '/confirm')!, {
      form: { xsrf: inputValue(question.body, 'xsrf')!, logout: 'yes' },
    });
    expect(done.body).toContain('You are signed out');
    expectPageHeaders(done);
    // The next authorization asks to sign in again.
    const next = await browser.follow(authorizeUrl(clientId, 'after'));
    expect(formAction(next.body, '/login')).toBeDefined();
  });
});
