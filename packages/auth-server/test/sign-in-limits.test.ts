/**
 * The passkey sign-in form under the password form's throttle (accounts/login-guard.ts), through a
 * running server, from several real loopback source addresses: refused answers for one account from
 * one address are refused with the usual 429 page after the pair's limit, whatever form they came
 * from; answers that name no stored passkey (or are no answer at all) count too; an address's
 * failures across forms and accounts refuse that address; the owner's passkey from another address
 * still signs in. And the home page's wrong methods: 405 with `Allow`, not 404.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { ADMIN, authServerForFile } from '../../../test-support/auth-server.js';
import type { Page } from '../../../test-support/form-browser.js';
import {
  openPasskeySignIn,
  signedIn,
  signInClient,
  storePasskey,
  type PasskeySignInPage,
} from '../../../test-support/passkey-sign-in.js';
import { SoftwareAuthenticator } from '../../../test-support/software-authenticator.js';

const PER_PAIR = 3;
const PER_ADDRESS = 6;
const TOO_MANY = 'Too many failed sign-ins';
/** What the page says when this account is locked from this address, and when the address is. */
const ACCOUNT_LOCKED =
  /to this account from this network: this account is locked here for now\. Try again in \d+ minutes?;/;
const ADDRESS_LOCKED = /Too many failed sign-ins from this network\. Try again in \d+ minutes?\./;

const auth = authServerForFile({
  LOGIN_MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS: String(PER_PAIR),
  LOGIN_MAX_FAILURES_PER_ADDRESS: String(PER_ADDRESS),
  LOGIN_ACCOUNT_DELAY_AFTER: '1000',
});
const staff = { email: 'pat.passkey@school.test', password: `pat ${randomBytes(9).toString('base64url')}` };
let clientId: string;
let key: SoftwareAuthenticator;

beforeAll(async () => {
  clientId = await signInClient(auth);
  const staffId = await auth.running.accounts.upsert({ ...staff, name: 'Pat Passkey', role: 'staff' });
  key = new SoftwareAuthenticator('127.0.0.1', auth.issuer, Buffer.from(staffId));
  await storePasskey(auth, key, staffId);
});

const signInFrom = (from: string) => openPasskeySignIn(auth, clientId, from);
type SignIn = PasskeySignInPage;

/** A real answer for the page's current challenge. */
const realAnswer = async (s: SignIn) => key.assertion(await s.challenge());

/** The pair's answer signed with the wrong key: the right shape and credential, a bad signature. */
async function wrongSignature(s: SignIn): Promise<Page> {
  const answer = await realAnswer(s);
  const signature = Buffer.from(answer.response.signature as string, 'base64url');
  signature[signature.length - 1]! ^= 1;
  return s.passkey(
    JSON.stringify({
      ...answer,
      response: { ...answer.response, signature: signature.toString('base64url') },
    }),
  );
}

/** The usual refusal: 429, Retry-After, the sign-in page saying why (`says`: whose lock). */
function expectThrottled(page: Page, says?: RegExp): void {
  expect({ status: page.status, retryAfter: Number(page.headers.get('retry-after')) > 0 }).toEqual({
    status: 429,
    retryAfter: true,
  });
  expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(page.body).toContain(TOO_MANY);
  expect(page.body).not.toContain('minute(s)');
  if (says) expect(page.body).toMatch(says);
}

describe('the passkey sign-in form under the sign-in throttle', () => {
  it('refuses an account’s passkey answers from one address after the limit, then even a right one; not from elsewhere', async () => {
    const s = await signInFrom('127.0.8.1');
    for (let i = 0; i < PER_PAIR; i++) expect((await wrongSignature(s)).status).toBe(401);
    expectThrottled(await wrongSignature(s), ACCOUNT_LOCKED);
    // Refused before it is checked: the right answer from this address is refused too.
    expectThrottled(await s.passkey(JSON.stringify(await realAnswer(s))));
    // The owner elsewhere is not locked out.
    const owner = await signInFrom('127.0.8.2');
    expect(signedIn(await owner.passkey(JSON.stringify(await realAnswer(owner))))).toBe(true);
  });

  it('counts an account’s failed passwords and passkey answers from one address together', async () => {
    const s = await signInFrom('127.0.8.3');
    expect((await s.password(staff.email, 'wrong one')).status).toBe(401);
    expect((await wrongSignature(s)).status).toBe(401);
    expect((await s.password(staff.email, 'wrong two')).status).toBe(401);
    expectThrottled(await s.passkey(JSON.stringify(await realAnswer(s))));
    expectThrottled(await s.password(staff.email, staff.password));
  });

  it('counts answers that name no stored passkey, or are no answer, against the address', async () => {
    const junk = await signInFrom('127.0.8.4');
    for (const response of ['42', '{"id":"unknown-passkey"}', 'not json']) {
      expect((await junk.passkey(response)).status).toBe(401);
    }
    expectThrottled(await junk.passkey('{}'));

    // One address spreading its failures over forms and accounts is refused as an address.
    const spread = await signInFrom('127.0.8.5');
    expect((await wrongSignature(spread)).status).toBe(401);
    expect((await wrongSignature(spread)).status).toBe(401);
    expect((await spread.passkey('[]')).status).toBe(401);
    expect((await spread.passkey('{"length":100000000}')).status).toBe(401);
    expect((await spread.password(ADMIN.email, 'wrong')).status).toBe(401);
    expect((await spread.password('nobody@school.test', 'wrong')).status).toBe(401);
    expectThrottled(await spread.password('someone.else@school.test', 'wrong'), ADDRESS_LOCKED);
    expectThrottled(await spread.passkey(JSON.stringify(await realAnswer(spread))));
  });
});

describe('the home page', () => {
  it('answers a method it does not take with 405 and Allow, in the page’s or the API’s shape', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      for (const accept of ['text/html', 'application/json']) {
        const res = await fetch(`${auth.issuer}/`, { method, headers: { accept } });
        const body = await res.text();
        expect({ method, accept, status: res.status, allow: res.headers.get('allow') }).toEqual({
          method,
          accept,
          status: 405,
          allow: 'GET, HEAD',
        });
        if (accept === 'application/json')
          expect(JSON.parse(body)).toMatchObject({
            error: 'method_not_allowed',
            error_description: expect.any(String),
          });
        expect(body).not.toMatch(/\bat .*\.(ts|js):\d+/); // no stack trace
      }
    }
    // What it does take is as before: the page for a browser, the JSON 404 for a program.
    const page = await fetch(`${auth.issuer}/`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    await expect(page.text()).resolves.toContain('School sign-in');
    const program = await fetch(`${auth.issuer}/`, { headers: { accept: 'application/json' } });
    expect(program.status).toBe(404);
    await expect(program.json()).resolves.toMatchObject({ error: 'not_found' });
  });
});
