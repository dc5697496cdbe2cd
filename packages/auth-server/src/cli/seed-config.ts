/**
 * The settings of `school-auth seed-admin`, read from the environment through one schema (the
 * server's own settings are in config.ts).
 *
 * The admin password: there is no default password. In production (`NODE_ENV=production`)
 * SEED_ADMIN_PASSWORD must be given. Whatever NODE_ENV says, it must not be one published in this
 * repository (an example file copied as is, a development install reachable from the network,
 * would otherwise have an admin anyone can sign in as). When it is not given, seed-admin generates
 * one for a new admin and prints it
 * once (seed-admin.ts); `scripts/start` instead passes the one it keeps in `.data/secrets.env`.
 */
import {
  PUBLISHED_ADMIN_PASSWORDS,
  displayTextProblem,
  documented,
  settingsOf,
  nodeEnv,
  parseEnvironment,
  type Environment,
} from '@school/shared';
import { z } from 'zod';
import { passwordSchema } from '../accounts/password-rule.js';

const schema = z
  .object({
    NODE_ENV: documented(nodeEnv, '`seed-admin` in `production` needs SEED_ADMIN_PASSWORD.'),
    SEED_ADMIN_EMAIL: documented(
      z.string().email().default('admin@school.test'),
      '`seed-admin`: the admin’s email, the sign-in name.',
    ),
    SEED_ADMIN_PASSWORD: documented(
      passwordSchema.optional(),
      '`seed-admin`: the admin’s password (12+ characters; required in production; a password published in this repository is refused). Unset outside production: a new admin gets a generated one, printed once.',
    ),
    SEED_ADMIN_NAME: documented(
      z
        .string()
        .min(1)
        .default('Ada Admin')
        .superRefine((name, ctx) => {
          const problem = displayTextProblem(name);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        }),
      '`seed-admin`: the admin’s display name.',
    ),
  })
  .superRefine((env, ctx) => {
    const hint = 'choose one of 12+ characters, e.g. `openssl rand -base64 18`';
    if (env.SEED_ADMIN_PASSWORD !== undefined && PUBLISHED_ADMIN_PASSWORDS.has(env.SEED_ADMIN_PASSWORD))
      ctx.addIssue({
        code: 'custom',
        path: ['SEED_ADMIN_PASSWORD'],
        message: `is a password published in the source code, refused; ${hint}`,
      });
    else if (env.SEED_ADMIN_PASSWORD === undefined && env.NODE_ENV === 'production')
      ctx.addIssue({
        code: 'custom',
        path: ['SEED_ADMIN_PASSWORD'],
        message: `is required in production; ${hint}`,
      });
  });

/** The variables of seed-admin, with their defaults and meanings (the auth server's example file). */
export const SEED_SETTINGS = settingsOf(schema.shape);

/** The validated settings of seed-admin. */
export type SeedConfig = z.output<typeof schema>;

/** Parses the environment (default: `process.env`) into a {@link SeedConfig}, or throws `ConfigError`. */
export function loadSeedConfig(env: Environment = process.env): SeedConfig {
  return parseEnvironment(schema, env);
}
