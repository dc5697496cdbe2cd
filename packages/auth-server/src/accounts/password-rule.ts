/**
 * The one password rule of every account, wherever a password is chosen: `school-auth seed-admin`
 * (cli/seed-config.ts), Your account's change of password, a staff account created on the Staff
 * accounts page or with `school-auth accounts create-staff`. A password is 12 to 1024 characters
 * (the upper bound only keeps a hash's input reasonable), and one published in this repository is
 * refused everywhere (seed-admin checks it in seed-config.ts).
 *
 * Generated passwords (a reset, a new staff account, seed-admin's first admin) are read aloud or
 * copied by hand from a screen, so they use no character that looks like another (0 O o, 1 l I i,
 * and the punctuation of base64url): 25 characters of a 55-character alphabet, drawn uniformly,
 * hold 144.5 random bits, the 144 of the 18 random bytes they replace. They are shown in groups of
 * five joined by hyphens, which are only there for reading (a hyphen is no secret).
 */
import { randomInt } from 'node:crypto';
import { PUBLISHED_ADMIN_PASSWORDS } from '@school/shared';
import { z } from 'zod';

/** The fewest characters a password may have. */
export const PASSWORD_MIN_LENGTH = 12;

/** A password a person chooses: 12 to 1024 characters. */
export const passwordSchema = z
  .string()
  .min(PASSWORD_MIN_LENGTH, `needs ${PASSWORD_MIN_LENGTH}+ characters`)
  .max(1024, 'needs at most 1024 characters');

/** What is wrong with `password` as a new password (in words for a page or a terminal), if anything. */
export function passwordProblem(password: string): string | undefined {
  const checked = passwordSchema.safeParse(password);
  if (!checked.success) return `The password ${checked.error.issues[0]!.message}.`;
  if (PUBLISHED_ADMIN_PASSWORDS.has(password))
    return 'This password is published in the source code of this service: choose another.';
  return undefined;
}

/** The characters of generated passwords: no two that a reader could take for each other. */
export const UNAMBIGUOUS_ALPHABET = '23456789abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ';

/** How many characters of {@link UNAMBIGUOUS_ALPHABET} a generated password has (≥ 144 bits). */
export const GENERATED_LENGTH = Math.ceil(144 / Math.log2(UNAMBIGUOUS_ALPHABET.length));

/** A generated password (see the module comment), shown once to whoever set it: `xxxxx-xxxxx-…`. */
export function generatePassword(): string {
  const chars = Array.from(
    { length: GENERATED_LENGTH },
    () => UNAMBIGUOUS_ALPHABET[randomInt(UNAMBIGUOUS_ALPHABET.length)],
  );
  return chars.join('').replace(/(.{5})(?=.)/g, '$1-');
}
