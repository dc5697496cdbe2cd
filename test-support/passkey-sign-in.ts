/**
 * The passkey forms of an in-process auth server, for suites that post WebAuthn answers to them
 * (test-support/software-authenticator.ts makes the answers). The in-process server's relying party
 * is `127.0.0.1`, an IP address, so its pages offer no passkey form (browsers would refuse it): the
 * form's action is the sign-in page's own with `/passkey`, and the challenge a page was rendered with
 * is read where the server keeps it (passkeys/challenges.ts).
 */
import type { TestAuthServer } from './auth-server.js';
import type { FormBrowser } from './form-browser.js';
import { formAction, inputValue, openSignInFrom, type Page } from './form-browser.js';
import { REDIRECT, registerClient } from './oauth-flow.js';
import type { SoftwareAuthenticator } from './software-authenticator.js';

/** The challenge waiting for `owner` (an interaction, or a login session for `register`). */
export async function waitingChallenge(
  auth: TestAuthServer,
  purpose: 'sign-in' | 'register',
  owner: string,
): Promise<string> {
  const key = `${auth.config.REDIS_KEY_PREFIX}webauthn:${purpose}:${owner}`;
  const challenge = await auth.running.redis.get(key);
  if (!challenge) throw new Error(`no ${purpose} challenge for ${owner}`);
  return challenge;
}

/** Registers the public client whose authorization requests open the sign-in pages. */
export async function signInClient(auth: TestAuthServer): Promise<string> {
  return (await registerClient(auth, { token_endpoint_auth_method: 'none' })).clientId;
}

/** Stores `key`'s credential as a passkey of `accountId` (what a registration would have stored). */
export async function storePasskey(
  auth: TestAuthServer,
  key: SoftwareAuthenticator,
  accountId: string,
): Promise<void> {
  const added = await auth.running.passkeys.store.add({
    _id: key.id,
    accountId,
    publicKey: key.coseKey().toString('base64url'),
    counter: 0,
    transports: ['internal'],
    name: 'Software key',
  });
  if (!added) throw new Error('the passkey is stored already');
}

/** A sign-in page opened by a browser at one source address. */
export interface PasskeySignInPage {
  browser: FormBrowser;
  /** The interaction, which the page's sign-in challenge is bound to. */
  uid: string;
  /** The CSRF token of the page's forms. */
  csrf: string;
  /** Posts `response` as the passkey form would. */
  passkey(response: string): Promise<Page>;
  /** Posts the password form. */
  password(email: string, password: string): Promise<Page>;
  /** The sign-in challenge the page carries now (each answer the page gets makes a new one). */
  challenge(): Promise<string>;
}

/** A fresh browser sending from `from` on the sign-in page of a new flow of the client `clientId`. */
export async function openPasskeySignIn(
  auth: TestAuthServer,
  clientId: string,
  from: string,
): Promise<PasskeySignInPage> {
  const { browser, page } = await openSignInFrom(auth.issuer, { clientId, redirectUri: REDIRECT }, from);
  const login = formAction(page.body, '/login');
  if (!login) throw new Error(`no sign-in page: ${page.status}`);
  const uid = /\/oauth\/interaction\/([^/]+)\/login$/.exec(login)![1]!;
  const csrf = inputValue(page.body, 'csrf')!;
  return {
    browser,
    uid,
    csrf,
    passkey: (response) =>
      browser.request(login.replace(/\/login$/, '/passkey'), { form: { csrf, response } }),
    password: (email, password) => browser.request(login, { form: { csrf, email, password } }),
    challenge: () => waitingChallenge(auth, 'sign-in', uid),
  };
}

/** Signed in: a sign-in form answers with the redirect that resumes the authorization. */
export const signedIn = (page: Page): boolean =>
  page.status === 303 && /\/oauth\/authorize\//.test(page.location ?? '');
