/**
 * A WebAuthn authenticator in software, for the in-process suites: an ES256 (P-256) key pair made by
 * node:crypto, and the registration and sign-in answers a page of ours would post for it, in the
 * shape `@simplewebauthn/browser` 14 gives them (every member it sets), signed for real. The
 * in-process server's relying party is `127.0.0.1`, an IP address browsers refuse, so Chromium's
 * virtual authenticator (test-e2e/passkeys.test.ts) cannot be used there.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

/** A CBOR value this encoder writes: integers, byte strings, text, arrays and maps. */
type Cbor = number | string | Uint8Array | Cbor[] | Map<Cbor, Cbor>;

function head(major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 0x100) return Buffer.from([(major << 5) | 24, n]);
  if (n < 0x10000) return Buffer.from([(major << 5) | 25, n >> 8, n & 0xff]);
  const b = Buffer.alloc(5);
  b[0] = (major << 5) | 26;
  b.writeUInt32BE(n, 1);
  return b;
}

/** CBOR (RFC 8949) of `value`, definite lengths, as WebAuthn's attestation objects and COSE keys use. */
export function cbor(value: Cbor): Buffer {
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  if (Array.isArray(value)) return Buffer.concat([head(4, value.length), ...value.map(cbor)]);
  return Buffer.concat([head(5, value.size), ...[...value].flatMap(([k, v]) => [cbor(k), cbor(v)])]);
}

/** An answer as an object, before the page's script turns it into JSON. */
export type AnswerObject = Record<string, unknown> & { response: Record<string, unknown> };

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

/** Flags of authenticator data: user present, user verified, attested credential data included. */
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

/** One credential of a software authenticator, for one relying party. */
export class SoftwareAuthenticator {
  readonly credentialId = randomBytes(32);
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;
  private counter = 0;

  /** `rpId`: the relying party's id; `origin`: the page's origin; `userHandle`: the account's WebAuthn user id. */
  constructor(
    readonly rpId: string,
    readonly origin: string,
    readonly userHandle: Uint8Array,
  ) {
    ({ privateKey: this.privateKey, publicKey: this.publicKey } = generateKeyPairSync('ec', {
      namedCurve: 'P-256',
    }));
  }

  /** The credential id, base64url. */
  get id(): string {
    return b64(this.credentialId);
  }

  /** The public key as COSE (EC2, P-256, ES256), the form the server stores. */
  coseKey(): Buffer {
    const jwk = this.publicKey.export({ format: 'jwk' });
    return cbor(
      new Map<Cbor, Cbor>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
  }

  private authenticatorData(flags: number, attested?: Buffer): Buffer {
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(this.counter);
    return Buffer.concat([sha256(this.rpId), Buffer.from([flags]), counter, ...(attested ? [attested] : [])]);
  }

  private clientData(type: 'webauthn.create' | 'webauthn.get', challenge: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false }));
  }

  /** The answer `startRegistration` gives for `challenge` (base64url), as an object. */
  registration(challenge: string): AnswerObject {
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, this.credentialId, this.coseKey()]);
    const authData = this.authenticatorData(UP | UV | AT, attested);
    const attestationObject = cbor(
      new Map<Cbor, Cbor>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    return {
      id: this.id,
      rawId: this.id,
      response: {
        attestationObject: b64(attestationObject),
        clientDataJSON: b64(this.clientData('webauthn.create', challenge)),
        transports: ['internal'],
        publicKeyAlgorithm: -7,
        publicKey: b64(this.publicKey.export({ format: 'der', type: 'spki' })),
        authenticatorData: b64(authData),
      },
      type: 'public-key',
      clientExtensionResults: { credProps: { rk: true } },
      authenticatorAttachment: 'platform',
    };
  }

  /** The answer `startAuthentication` gives for `challenge` (base64url), as an object; counts one use. */
  assertion(challenge: string): AnswerObject {
    this.counter += 1;
    const authData = this.authenticatorData(UP | UV);
    const clientDataJSON = this.clientData('webauthn.get', challenge);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), this.privateKey);
    return {
      id: this.id,
      rawId: this.id,
      response: {
        authenticatorData: b64(authData),
        clientDataJSON: b64(clientDataJSON),
        signature: b64(signature),
        userHandle: b64(this.userHandle),
      },
      type: 'public-key',
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}
