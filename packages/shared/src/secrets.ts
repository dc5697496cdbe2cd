/**
 * The rule both services apply to their secrets: outside the test suites
 * (`NODE_ENV` other than `test`) a secret must be given, and must not be one of the values ever
 * written in this repository, whose every reader could forge what it protects. The problems name the
 * variable and say how to make a good value, for the start-up message.
 */

/**
 * The secrets a service falls back to under NODE_ENV=test when none is given (the suites' in-process
 * servers, the images' smoke test); published, so refused everywhere else.
 */
export const TEST_ONLY_SECRETS = {
  cookie: 'dev-only-cookie-secret-change-me-0123456789',
  introspection: 'dev-only-resource-api-secret-change-me-0123456789',
} as const;

/**
 * Every secret value published in this repository's source (development defaults of earlier
 * versions, the test harnesses' fixed values). Refused outside NODE_ENV=test.
 */
export const PUBLISHED_SECRETS: ReadonlySet<string> = new Set([
  TEST_ONLY_SECRETS.cookie,
  TEST_ONLY_SECRETS.introspection,
  'test-introspection-secret-0123456789abcdef',
  'e2e-introspection-secret-0123456789abcdef',
]);

/**
 * Admin passwords published in this repository (the seed default of earlier versions, the test
 * harnesses' admins of earlier versions). `seed-admin` and every form that sets a password refuse them.
 */
export const PUBLISHED_ADMIN_PASSWORDS: ReadonlySet<string> = new Set([
  'school-admin-password',
  'correct horse battery staple',
  'e2e admin password 123',
]);

/** How to make a secret, for the messages. */
export const SECRET_HINT =
  'generate one with `openssl rand -hex 32` (scripts/start keeps one per installation in .data/secrets.env)';

/** One problem with one variable, in the shape a zod issue takes. */
export interface SecretProblem {
  path: [string];
  message: string;
}

/**
 * The problems with `secrets` (variable name → its value, a list for a comma-separated variable,
 * undefined when not set) under `nodeEnv`: none under `test`; elsewhere each missing or published one.
 */
export function secretProblems(
  nodeEnv: string | undefined,
  secrets: Record<string, string | readonly string[] | undefined>,
): SecretProblem[] {
  if (nodeEnv === 'test') return [];
  const problems: SecretProblem[] = [];
  for (const [name, value] of Object.entries(secrets)) {
    if (value === undefined) {
      problems.push({ path: [name], message: `is required unless NODE_ENV=test; ${SECRET_HINT}` });
    } else if ((Array.isArray(value) ? value : [value]).some((v: string) => PUBLISHED_SECRETS.has(v))) {
      problems.push({
        path: [name],
        message: `is a value published in the source code, refused unless NODE_ENV=test; ${SECRET_HINT}`,
      });
    }
  }
  return problems;
}
