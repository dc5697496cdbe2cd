/**
 * How a login session was signed in, as oidc-provider keeps it (`amr`, RFC 8176) and as the ID token
 * says it: a passkey is proof of possession of a key held by an authenticator, with its user verified
 * (`hwk`, `user`); a password is `pwd`; a recovery code is a one-time password (`otp`).
 */
export const PASSKEY_AMR = ['hwk', 'user'];
export const PASSWORD_AMR = ['pwd'];
export const RECOVERY_CODE_AMR = ['otp'];

/** True when a session signed in with `amr` used a passkey. */
export function signedInWithPasskey(amr: readonly string[] | undefined): boolean {
  return amr?.includes('hwk') ?? false;
}

/** True when `scope` (space separated) names a write scope (`<area>:write`, `@school/shared` scopes.ts). */
export function namesWriteScope(scope: unknown): boolean {
  return typeof scope === 'string' && scope.split(' ').some((s) => s.endsWith(':write'));
}
