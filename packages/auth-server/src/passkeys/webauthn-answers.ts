/**
 * The browser's WebAuthn answers as the pages post them (JSON in a form field), checked against zod
 * schemas before anything reads them: exactly the members `@simplewebauthn/browser` 14 produces
 * (`startRegistration`, `startAuthentication`), every binary value a base64url string of bounded
 * length, every other value of its one type. Anything else (a number or an object where a string
 * belongs, an object with a `length`, an array, an overlong string, an unknown member) is no answer,
 * so no Buffer is sized, no loop runs and no library is called on what a form carried.
 *
 * The bounds are those of the WebAuthn specification where it sets one (a credential id of at most
 * 1023 bytes, a user handle of at most 64) and generous elsewhere: well above what authenticators
 * send, well below what could cost anything to read.
 */
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { z } from 'zod';

/** Base64url without padding, of at most `maxBytes` bytes once decoded (at least one). */
const base64url = (maxBytes: number) =>
  z
    .string()
    .min(1)
    .max(Math.ceil((maxBytes * 4) / 3))
    .regex(/^[A-Za-z0-9_-]+$/);

/** A credential id: at most 1023 bytes (WebAuthn Level 3, §5.8.2 `credentialIdLength`). */
const credentialId = base64url(1023);

/**
 * A binary extension output: base64url, or `{}`, which is what `JSON.stringify` makes of the
 * ArrayBuffer a browser returns.
 */
const binaryOutput = z.union([base64url(1024), z.strictObject({})]);

/**
 * The client extension outputs browsers report (`getClientExtensionResults()`), each optional. They
 * are checked, then handed on empty: this server asks for no extension's result and reads none.
 */
const clientExtensionResults = z
  .strictObject({
    appid: z.boolean().optional(),
    credProps: z.strictObject({ rk: z.boolean().optional() }).optional(),
    hmacCreateSecret: z.boolean().optional(),
    largeBlob: z
      .strictObject({
        supported: z.boolean().optional(),
        blob: binaryOutput.optional(),
        written: z.boolean().optional(),
      })
      .optional(),
    prf: z
      .strictObject({
        enabled: z.boolean().optional(),
        results: z
          .strictObject({ first: binaryOutput.optional(), second: binaryOutput.optional() })
          .optional(),
      })
      .optional(),
  })
  .transform(() => ({}));

/** The members both answers share. */
const credential = {
  id: credentialId,
  rawId: credentialId,
  type: z.literal('public-key'),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  clientExtensionResults,
};

/** What `startRegistration` answers (the server's `RegistrationResponseJSON`). */
export const registrationAnswer = z.strictObject({
  ...credential,
  response: z.strictObject({
    clientDataJSON: base64url(4096),
    attestationObject: base64url(8192),
    authenticatorData: base64url(4096).optional(),
    /** `getTransports()`: names such as `internal`, `hybrid`, `usb`. */
    transports: z
      .array(
        z
          .string()
          .max(32)
          .regex(/^[a-z][a-z-]*$/),
      )
      .max(10)
      .optional(),
    /** A COSE algorithm identifier (a signed integer the IANA registry assigns). */
    publicKeyAlgorithm: z.number().int().min(-65536).max(65535).optional(),
    /** `getPublicKey()`: the SubjectPublicKeyInfo. */
    publicKey: base64url(2048).optional(),
  }),
});

/** What `startAuthentication` answers (the server's `AuthenticationResponseJSON`). */
export const authenticationAnswer = z.strictObject({
  ...credential,
  response: z.strictObject({
    clientDataJSON: base64url(4096),
    authenticatorData: base64url(4096),
    signature: base64url(1024),
    /** The user handle: at most 64 bytes (WebAuthn Level 3, §5.4.3). */
    userHandle: base64url(64).optional(),
  }),
});

/** Reads `json` as an answer of `schema`; undefined when it is not JSON or not of that shape. */
function read<T>(schema: z.ZodType<T>, json: string): T | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  const checked = schema.safeParse(value);
  return checked.success ? checked.data : undefined;
}

/** A registration answer, or undefined when `json` is not one. */
export function readRegistrationAnswer(json: string): RegistrationResponseJSON | undefined {
  return read(registrationAnswer, json);
}

/** A sign-in answer, or undefined when `json` is not one. */
export function readAuthenticationAnswer(json: string): AuthenticationResponseJSON | undefined {
  return read(authenticationAnswer, json);
}
