/**
 * The id open registration gives a client: 128 random bits in base64url, never starting with `-` or
 * `_`, so an operator can pass it to `school-auth` as an argument (a leading `-` reads as an option,
 * which made one id in 64 undeletable from the command line).
 */
import { randomBytes } from 'node:crypto';

/** A new registered client's id (oidc-provider's `features.registration.idFactory`). */
export function registeredClientId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (/^[A-Za-z0-9]/.test(id)) return id;
  }
}
