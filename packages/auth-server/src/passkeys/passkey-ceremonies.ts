/**
 * The two WebAuthn ceremonies, with `@simplewebauthn/server` doing every check of the browser's
 * answer (client data, authenticator data, attestation, signature, counter) once the answer has the
 * shape of one (webauthn-answers.ts: nothing reads a posted value before that):
 *
 * - registration on Your account: a discoverable credential (resident key) with user verification,
 *   for the signed-in account, its challenge bound to the login session;
 * - sign-in on the login page: any of this site's discoverable credentials, user verification
 *   required, its challenge bound to the interaction.
 *
 * The relying party's id and origin come from BASE_URL alone, never from a request's headers, so an
 * assertion made for another site (a look-alike origin, another RP id) is refused. Each challenge is
 * single use (challenges.ts). A counter that does not move forward (a cloned authenticator) is refused.
 */
import { isIP } from 'node:net';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticatorTransport,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/server';
import type { Challenges } from './challenges.js';
import { MAX_PASSKEYS_PER_ACCOUNT, type PasskeyStore } from './passkey-store.js';
import { readAuthenticationAnswer, readRegistrationAnswer } from './webauthn-answers.js';

/** A browser's answer that does not sign in or register, with the reason for the audit log. */
export class PasskeyRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** What the ceremonies need. */
export interface PasskeyCeremonyDeps {
  /** BASE_URL: the origin the browser must report, and the RP id (its host). */
  baseUrl: string;
  passkeys: PasskeyStore;
  challenges: Challenges;
}

/** Who registers a passkey. */
export interface PasskeyOwner {
  _id: string;
  email: string;
  name: string;
}

/** A verified passkey sign-in. */
export interface PasskeySignIn {
  accountId: string;
  passkeyId: string;
  passkeyName: string;
}

const TIMEOUT_MS = 2 * 60 * 1000;

/** The refusal of a posted value that is not a WebAuthn answer of the ceremony's shape (webauthn-answers.ts). */
const NOT_AN_ANSWER = 'not a WebAuthn response';

/** Registration and sign-in with passkeys. */
export class PasskeyCeremonies {
  readonly rpID: string;
  readonly origin: string;
  /**
   * Whether browsers will use passkeys here at all: they refuse an IP address as the relying
   * party's id, so on a BASE_URL like `http://127.0.0.1:8080` the pages offer no passkey.
   */
  readonly available: boolean;
  private readonly passkeys: PasskeyStore;
  private readonly challenges: Challenges;

  constructor({ baseUrl, passkeys, challenges }: PasskeyCeremonyDeps) {
    const url = new URL(baseUrl);
    this.rpID = url.hostname;
    this.origin = url.origin;
    this.available = isIP(url.hostname.replace(/^\[(.*)\]$/, '$1')) === 0;
    this.passkeys = passkeys;
    this.challenges = challenges;
  }

  /** Options for registering a passkey on the page of login session `sessionUid`. */
  async registrationOptions(
    owner: PasskeyOwner,
    sessionUid: string,
  ): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const existing = await this.passkeys.descriptors(owner._id);
    const options = await generateRegistrationOptions({
      rpName: 'School sign-in',
      rpID: this.rpID,
      userName: owner.email,
      userDisplayName: owner.name,
      userID: new TextEncoder().encode(owner._id),
      attestationType: 'none',
      timeout: TIMEOUT_MS,
      excludeCredentials: existing.map((c) => ({
        id: c.id,
        transports: c.transports as AuthenticatorTransport[],
      })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    });
    await this.challenges.put('register', sessionUid, options.challenge);
    return options;
  }

  /** Verifies and stores a new passkey named `name` for `accountId`; refused: {@link PasskeyRefused}. */
  async register(accountId: string, sessionUid: string, responseJson: string, name: string): Promise<void> {
    const expectedChallenge = await this.challenges.take('register', sessionUid);
    if (!expectedChallenge) throw new PasskeyRefused('no registration was started, or it expired');
    if ((await this.passkeys.count(accountId)) >= MAX_PASSKEYS_PER_ACCOUNT)
      throw new PasskeyRefused(`an account holds at most ${MAX_PASSKEYS_PER_ACCOUNT} passkeys`);
    const response = readRegistrationAnswer(responseJson);
    if (!response) throw new PasskeyRefused(NOT_AN_ANSWER);
    let verification;
    try {
      verification = await verifyRegistrationResponse({
        response,
        expectedChallenge,
        expectedOrigin: this.origin,
        expectedRPID: this.rpID,
        requireUserVerification: true,
      });
    } catch (err) {
      throw new PasskeyRefused(`registration not verified: ${(err as Error).message}`);
    }
    if (!verification.verified) throw new PasskeyRefused('registration not verified');
    const { credential } = verification.registrationInfo;
    const added = await this.passkeys.add({
      _id: credential.id,
      accountId,
      publicKey: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      transports: credential.transports ?? [],
      name,
    });
    if (!added) throw new PasskeyRefused('this passkey is registered already');
  }

  /** Options for signing in on the login page of interaction `interactionUid`. */
  async signInOptions(interactionUid: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const options = await generateAuthenticationOptions({
      rpID: this.rpID,
      allowCredentials: [],
      userVerification: 'required',
      timeout: TIMEOUT_MS,
    });
    await this.challenges.put('sign-in', interactionUid, options.challenge);
    return options;
  }

  /**
   * The account of the stored passkey a sign-in answer names, before anything is verified (for the
   * sign-in throttle and the account's state); undefined when `responseJson` is no sign-in answer or
   * names no stored passkey. Says nothing about whether the answer is right: {@link signIn} does.
   */
  async claimedAccount(responseJson: string): Promise<string | undefined> {
    const response = readAuthenticationAnswer(responseJson);
    return response ? (await this.passkeys.find(response.id))?.accountId : undefined;
  }

  /** Verifies a passkey sign-in on interaction `interactionUid`; refused: {@link PasskeyRefused}. */
  async signIn(interactionUid: string, responseJson: string): Promise<PasskeySignIn> {
    const expectedChallenge = await this.challenges.take('sign-in', interactionUid);
    if (!expectedChallenge) throw new PasskeyRefused('no sign-in challenge is waiting (used or expired)');
    const response = readAuthenticationAnswer(responseJson);
    if (!response) throw new PasskeyRefused(NOT_AN_ANSWER);
    const passkey = await this.passkeys.find(response.id);
    if (!passkey) throw new PasskeyRefused('unknown passkey');
    const { userHandle } = response.response;
    if (userHandle && Buffer.from(userHandle, 'base64url').toString('utf8') !== passkey.accountId)
      throw new PasskeyRefused('the passkey belongs to another account');
    let verification;
    try {
      verification = await verifyAuthenticationResponse({
        response,
        expectedChallenge,
        expectedOrigin: this.origin,
        expectedRPID: this.rpID,
        requireUserVerification: true,
        credential: {
          id: passkey._id,
          publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')),
          counter: passkey.counter,
          transports: passkey.transports,
        },
      });
    } catch (err) {
      throw new PasskeyRefused(`assertion not verified: ${(err as Error).message}`);
    }
    if (!verification.verified) throw new PasskeyRefused('assertion not verified');
    const moved = await this.passkeys.recordUse(
      passkey._id,
      passkey.counter,
      verification.authenticationInfo.newCounter,
    );
    if (!moved) throw new PasskeyRefused('the passkey was used at the same time elsewhere');
    return { accountId: passkey.accountId, passkeyId: passkey._id, passkeyName: passkey.name };
  }
}
