/**
 * Password hashing with argon2id at OWASP's first recommended setting (19 MiB, 2 passes, 1 lane):
 * about 20-30 ms per hash on one core, which keeps login throughput above Keycloak's published
 * 15/s per core while staying at or above OWASP's minimum.
 *
 * Verifying against an unknown email still runs one full hash (against a fixed dummy), so response
 * time does not reveal whether an account exists.
 *
 * The library is @node-rs/argon2 (prebuilt N-API binaries per platform, no build step): the `argon2`
 * package's prebuilt Linux binary crashed on load here, and compiling it needs a toolchain the
 * production image does not have.
 */
import { hash, verify } from '@node-rs/argon2';

/** `Algorithm.Argon2id` of @node-rs/argon2 (a const enum, which isolated modules cannot import). */
const ARGON2ID = 2;

/** The argon2id parameters every new hash uses. */
export const HASH_OPTIONS = {
  algorithm: ARGON2ID,
  memoryCost: 19 * 1024,
  timeCost: 2,
  parallelism: 1,
} as const;

/** Hashes a password for storage (PHC string: algorithm, parameters, salt and hash). */
export function hashPassword(password: string): Promise<string> {
  return hash(password, HASH_OPTIONS);
}

let dummy: Promise<string> | undefined;

/**
 * Checks `password` against the `stored` hash; with `stored` undefined (unknown account) it spends the
 * same time and answers false.
 */
export async function verifyPassword(stored: string | undefined, password: string): Promise<boolean> {
  if (!stored) {
    dummy ??= hashPassword('not-a-real-password');
    await verify(await dummy, password).catch(() => false);
    return false;
  }
  try {
    return await verify(stored, password);
  } catch {
    return false; // a malformed stored hash never signs anybody in
  }
}
