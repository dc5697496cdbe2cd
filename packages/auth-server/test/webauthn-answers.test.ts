/**
 * The WebAuthn answers the passkey forms post, against a running auth server: every answer is checked
 * for its shape before anything reads it. A member of the wrong type (a number, a boolean, `{}`, an
 * object with a `length`, an array), an overlong string or an unknown member, in the sign-in answer
 * or the registration answer, is refused with the form's page (401 / 400) and audited as no answer,
 * never a 500, and never sizes a buffer; so is any shape fast-check makes. Real answers (a software
 * authenticator signing with P-256, test-support/software-authenticator.ts) still register and sign
 * in, and a disabled account's passkey is refused before its answer is verified or its use recorded.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it, jest } from '@jest/globals';
import fc from 'fast-check';
import { authServerForFile } from '../../../test-support/auth-server.js';
import { FormBrowser, inputValue, openAccountPage } from '../../../test-support/form-browser.js';
import {
  openPasskeySignIn,
  signedIn,
  signInClient,
  storePasskey,
  waitingChallenge,
  type PasskeySignInPage,
} from '../../../test-support/passkey-sign-in.js';
import { SoftwareAuthenticator, type AnswerObject } from '../../../test-support/software-authenticator.js';

jest.setTimeout(180_000);

const PASSKEY_ERROR = 'That passkey could not sign you in';
const NOT_ADDED = 'The passkey was not added';
const NOT_AN_ANSWER = 'not a WebAuthn response';

// Many refused answers from few addresses: the sign-in throttle is another file's subject.
const auth = authServerForFile({
  LOGIN_MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS: '100000',
  LOGIN_MAX_FAILURES_PER_ADDRESS: '100000',
  LOGIN_ACCOUNT_DELAY_AFTER: '100000',
});
const staff = { email: 'kim.keys@school.test', password: `kim ${randomBytes(9).toString('base64url')}` };
let staffId: string;
let clientId: string;
let key: SoftwareAuthenticator;

beforeAll(async () => {
  clientId = await signInClient(auth);
  staffId = await auth.running.accounts.upsert({ ...staff, name: 'Kim Keys', role: 'staff' });
  key = new SoftwareAuthenticator('127.0.0.1', auth.issuer, Buffer.from(staffId));
  await storePasskey(auth, key, staffId);
});

const openSignIn = (from: string) => openPasskeySignIn(auth, clientId, from);

/** The reasons of the passkey refusals audited from `ip`, oldest first. */
async function refusalsFrom(ip: string): Promise<string[]> {
  const events = await auth.running.audit.query({ type: 'passkey_refused', limit: 1000 });
  return events
    .filter((e) => e.ip === ip)
    .reverse()
    .map((e) => String((e.details as { reason?: unknown })?.reason));
}

/** A real sign-in answer for `page`, as an object to spoil. */
async function realAnswer(page: PasskeySignInPage): Promise<AnswerObject> {
  return key.assertion(await page.challenge());
}

type Answer = AnswerObject;

/** Spoiled sign-in answers: each names the stored passkey, so a lookup by its id would find it. */
const SPOILED: Array<[string, (a: Answer) => unknown]> = [
  ['a number as userHandle', (a) => ({ ...a, response: { ...a.response, userHandle: 12345 } })],
  ['a boolean as userHandle', (a) => ({ ...a, response: { ...a.response, userHandle: true } })],
  ['{} as userHandle', (a) => ({ ...a, response: { ...a.response, userHandle: {} } })],
  [
    '{length: 1e8} as userHandle',
    (a) => ({ ...a, response: { ...a.response, userHandle: { length: 1e8 } } }),
  ],
  [
    '{length: 2^32} as userHandle',
    (a) => ({ ...a, response: { ...a.response, userHandle: { length: 4294967296 } } }),
  ],
  ['an array as userHandle', (a) => ({ ...a, response: { ...a.response, userHandle: ['a', 'b'] } })],
  ['an overlong userHandle', (a) => ({ ...a, response: { ...a.response, userHandle: 'A'.repeat(200) } })],
  ['{length: 1e8} as signature', (a) => ({ ...a, response: { ...a.response, signature: { length: 1e8 } } })],
  ['a number as authenticatorData', (a) => ({ ...a, response: { ...a.response, authenticatorData: 7 } })],
  ['an array as clientDataJSON', (a) => ({ ...a, response: { ...a.response, clientDataJSON: [1, 2, 3] } })],
  ['not base64url', (a) => ({ ...a, response: { ...a.response, signature: 'c2ln+/==' } })],
  ['an unknown member', (a) => ({ ...a, extra: 'x' })],
  [
    'an unknown member of the response',
    (a) => ({ ...a, response: { ...a.response, attestationObject: 'AA' } }),
  ],
  ['an array as response', (a) => ({ ...a, response: [a.response] })],
  ['{length: 1e8} as rawId', (a) => ({ ...a, rawId: { length: 1e8 } })],
  ['no type', (a) => ({ ...a, type: undefined })],
  ['{length: 1e8} as clientExtensionResults', (a) => ({ ...a, clientExtensionResults: { length: 1e8 } })],
  ['an array', (a) => [a]],
  ['a number', () => 42],
  ['null', () => null],
];

describe('the passkey sign-in answer', () => {
  it('is refused with the sign-in page and audited as no answer when any member has the wrong shape', async () => {
    for (const [i, [what, spoil]] of SPOILED.entries()) {
      const from = `127.0.3.${i + 1}`;
      const page = await openSignIn(from);
      const answer = await page.passkey(JSON.stringify(spoil(await realAnswer(page))));
      expect({ what, status: answer.status, type: answer.headers.get('content-type') }).toEqual({
        what,
        status: 401,
        type: 'text/html; charset=utf-8',
      });
      expect(answer.body).toContain(PASSKEY_ERROR);
      await expect(refusalsFrom(from)).resolves.toEqual([NOT_AN_ANSWER]);
    }
    // Nothing moved: the stored passkey was never used.
    expect((await auth.running.passkeys.store.find(key.id))?.lastUsedAt).toBeUndefined();
  });

  it('is refused, never a 5xx, whatever shape fast-check gives it or its members', async () => {
    // Each answer from an address of its own: a refused answer counts against its address (and from
    // the third, holds the answer back), which is the throttle's test, not this one.
    let n = 0;
    const nextPage = () => openSignIn(`127.0.${4 + Math.floor(n / 250)}.${(n++ % 250) + 1}`);
    const shapeOf = await realAnswer(await nextPage());
    const member = fc.constantFrom(...Object.keys(shapeOf));
    const responseMember = fc.constantFrom(...Object.keys(shapeOf.response), 'attestationObject', 'x');
    // Never undefined: a member left out is an optional one missing, which a real answer may do.
    const value = fc.oneof(
      fc.anything({ maxDepth: 3 }).filter((v) => v !== undefined),
      fc.jsonValue({ maxDepth: 3 }),
      fc.record({ length: fc.oneof(fc.nat(), fc.constant(1e8), fc.constant(2 ** 32)) }),
      // Long, but the form with it stays under the interaction forms' 16 KB even percent-encoded.
      fc.string({ maxLength: 1500 }),
    );
    /** How a real answer for `page` is spoiled: all of it, one member, or one member of its response. */
    const spoilers = fc.oneof(
      fc.jsonValue({ maxDepth: 4 }).map((v) => () => JSON.stringify(v)),
      fc.string({ maxLength: 200 }).map((s) => () => s),
      fc.tuple(member, value).map(
        ([m, v]) =>
          (a: Answer) =>
            JSON.stringify({ ...a, [m]: v }),
      ),
      fc.tuple(responseMember, value).map(
        ([m, v]) =>
          (a: Answer) =>
            JSON.stringify({ ...a, response: { ...a.response, [m]: v } }),
      ),
    );
    await fc.assert(
      fc.asyncProperty(spoilers, async (spoil) => {
        const page = await nextPage();
        const real = await realAnswer(page);
        const spoiled = spoil(real);
        const answer = await page.passkey(spoiled);
        // A member replaced by its own value (`{}` for clientExtensionResults) spoils nothing.
        if (spoiled === JSON.stringify(real)) expect(signedIn(answer)).toBe(true);
        else {
          expect(answer.status).toBe(401);
          expect(answer.body).toContain(PASSKEY_ERROR);
        }
      }),
      { numRuns: 100, endOnFailure: true },
    );
  });

  it('signs in with a real answer, and refuses a disabled account’s passkey before verifying it', async () => {
    const ok = await openSignIn('127.0.5.1');
    expect(signedIn(await ok.passkey(JSON.stringify(await realAnswer(ok))))).toBe(true);
    const used = await auth.running.passkeys.store.find(key.id);
    expect(used?.counter).toBeGreaterThan(0);
    expect(used?.lastUsedAt).toEqual(expect.any(Date));

    await auth.running.accounts.setDisabled(staffId, true);
    try {
      const page = await openSignIn('127.0.5.2');
      const refused = await page.passkey(JSON.stringify(await realAnswer(page)));
      expect(refused.status).toBe(401);
      expect(refused.body).toContain(PASSKEY_ERROR);
      await expect(refusalsFrom('127.0.5.2')).resolves.toEqual(['account_disabled']);
      // Not verified, so its use is not recorded either.
      const after = await auth.running.passkeys.store.find(key.id);
      expect({ counter: after?.counter, lastUsedAt: after?.lastUsedAt }).toEqual({
        counter: used?.counter,
        lastUsedAt: used?.lastUsedAt,
      });
    } finally {
      await auth.running.accounts.setDisabled(staffId, false);
    }
    const again = await openSignIn('127.0.5.3');
    expect(signedIn(await again.passkey(JSON.stringify(await realAnswer(again))))).toBe(true);
  });
});

describe('the passkey registration answer', () => {
  // A staff member without a passkey yet, who adds one after typing the password again.
  const newcomer = { email: 'noa.new@school.test', password: `noa ${randomBytes(9).toString('base64url')}` };
  let newcomerId: string;
  beforeAll(async () => {
    newcomerId = await auth.running.accounts.upsert({ ...newcomer, name: 'Noa New', role: 'staff' });
  });

  /** The newcomer signed in on Your account, as a browser from `from`, the password confirmed. */
  async function yourAccount(
    from: string,
  ): Promise<{ browser: FormBrowser; csrf: string; sessionUid: string }> {
    const browser = new FormBrowser(auth.issuer, { localAddress: from });
    const signedInPage = await openAccountPage(browser, '/oauth/account/account', newcomer);
    expect(signedInPage.status).toBe(200);
    const confirmed = await browser.request('/oauth/account/account/confirm/password', {
      form: { csrf: inputValue(signedInPage.body, 'csrf')!, password: newcomer.password },
    });
    expect(confirmed.status).toBeLessThan(400);
    const page = await browser.request('/oauth/account/account');
    expect(page.status).toBe(200);
    // The login session the page's registration challenge is bound to.
    const prefix = `${auth.config.REDIS_KEY_PREFIX}webauthn:register:`;
    const keys = await auth.running.redis.keys(`${prefix}*`);
    expect(keys).toHaveLength(1);
    return { browser, csrf: inputValue(page.body, 'csrf')!, sessionUid: keys[0]!.slice(prefix.length) };
  }

  type Registration = AnswerObject;
  const SPOILED_REGISTRATIONS: Array<[string, (r: Registration) => unknown]> = [
    ['a number as attestationObject', (r) => ({ ...r, response: { ...r.response, attestationObject: 1 } })],
    [
      '{length: 1e8} as attestationObject',
      (r) => ({ ...r, response: { ...r.response, attestationObject: { length: 1e8 } } }),
    ],
    ['a boolean as clientDataJSON', (r) => ({ ...r, response: { ...r.response, clientDataJSON: false } })],
    ['{} as publicKey', (r) => ({ ...r, response: { ...r.response, publicKey: {} } })],
    ['a string as transports', (r) => ({ ...r, response: { ...r.response, transports: 'internal' } })],
    [
      'too many transports',
      (r) => ({ ...r, response: { ...r.response, transports: Array.from({ length: 50 }, () => 'usb') } }),
    ],
    [
      'a fraction as publicKeyAlgorithm',
      (r) => ({ ...r, response: { ...r.response, publicKeyAlgorithm: 0.5 } }),
    ],
    ['an overlong id', (r) => ({ ...r, id: 'A'.repeat(1500), rawId: 'A'.repeat(1500) })],
    ['an unknown member', (r) => ({ ...r, extensions: {} })],
    ['an unknown member of the response', (r) => ({ ...r, response: { ...r.response, userHandle: 'AA' } })],
    ['an unknown extension output', (r) => ({ ...r, clientExtensionResults: { devicePubKey: {} } })],
    ['an array', (r) => [r]],
  ];

  it('is refused with Your account’s page and audited as no answer when any member has the wrong shape', async () => {
    const from = '127.0.6.1';
    const { browser, csrf, sessionUid } = await yourAccount(from);
    const authenticator = new SoftwareAuthenticator('127.0.0.1', auth.issuer, Buffer.from(newcomerId));
    const before = await auth.running.passkeys.store.count(newcomerId);
    for (const [what, spoil] of SPOILED_REGISTRATIONS) {
      await browser.request('/oauth/account/account'); // a fresh challenge
      const real = authenticator.registration(await waitingChallenge(auth, 'register', sessionUid));
      const answer = await browser.request('/oauth/account/account/passkeys', {
        form: { csrf, name: 'Spoiled key', response: JSON.stringify(spoil(real)) },
      });
      expect({ what, status: answer.status }).toEqual({ what, status: 400 });
      expect(answer.body).toContain(NOT_ADDED);
    }
    const reasons = await refusalsFrom(from);
    expect(reasons).toEqual(SPOILED_REGISTRATIONS.map(() => NOT_AN_ANSWER));
    expect(await auth.running.passkeys.store.count(newcomerId)).toBe(before);

    // The same authenticator's real answer, every member as the browser library sets it, is added.
    await browser.request('/oauth/account/account');
    const real = authenticator.registration(await waitingChallenge(auth, 'register', sessionUid));
    const added = await browser.request('/oauth/account/account/passkeys', {
      form: { csrf, name: 'Second key', response: JSON.stringify(real) },
    });
    expect({ status: added.status, location: added.location }).toEqual({
      status: 303,
      location: `${auth.issuer}/oauth/account/account?done=passkey-added`,
    });
    expect((await auth.running.passkeys.store.find(authenticator.id))?.transports).toEqual(['internal']);
  });
});
