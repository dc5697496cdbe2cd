/**
 * The one password rule of every account, wherever a password is chosen: `school-auth seed-admin`
 * (cli/seed-config.ts), Your account's change of password, a staff account created on the Staff
 * accounts page or with `school-auth accounts create-staff`. A password is 12 to 1024 characters
 * (the upper bound only keeps a hash's input reasonable), and one published in this repository is
 * refused everywhere (seed-admin checks it in seed-config.ts). Generated passwords are 144 random bits.
 */
import { randomBytes } from 'node:crypto';
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

/** A generated password: 24 base64url characters (144 random bits), shown once to whoever set it. */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}
