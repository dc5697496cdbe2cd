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
  nodeEnv,
  parseEnvironment,
  type Environment,
} from '@school/shared';
import { z } from 'zod';
import { passwordSchema } from '../accounts/password-rule.js';

const schema = z
  .object({
    NODE_ENV: nodeEnv,
    /** The admin's email (the sign-in name). */
    SEED_ADMIN_EMAIL: z.string().email().default('admin@school.test'),
    /**
     * The admin's password (the rule of every password: accounts/password-rule.ts); absent outside
     * production: generated for a new admin.
     */
    SEED_ADMIN_PASSWORD: passwordSchema.optional(),
    /** The admin's display name. */
    SEED_ADMIN_NAME: z
      .string()
      .min(1)
      .default('Ada Admin')
      .superRefine((name, ctx) => {
        const problem = displayTextProblem(name);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      }),
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

/** The validated settings of seed-admin. */
export type SeedConfig = z.output<typeof schema>;

/** Parses the environment (default: `process.env`) into a {@link SeedConfig}, or throws `ConfigError`. */
export function loadSeedConfig(env: Environment = process.env): SeedConfig {
  return parseEnvironment(schema, env);
}
