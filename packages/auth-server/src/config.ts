/**
 * The auth server's deployment settings, read from the environment once, in `main.ts`.
 *
 * Every address and lifetime has a working local default. A bad value stops the process with a
 * message naming every problem at once, not the first one. Provider behaviour is code, not config:
 * only deployment values (addresses, secrets, lifetimes) live here.
 *
 * Secrets: there is no default secret outside the test suites. A value written
 * in the source is known to everyone who has read it, so a server started on one is a server whose
 * cookies and introspection anyone can forge. Outside `NODE_ENV=test` COOKIE_SECRETS and
 * INTROSPECTION_CLIENT_SECRET must be given, and the values ever published in this repository are
 * refused; the message names the variable and how to make one. `scripts/start` generates them per
 * installation into `.data/secrets.env` (mode 0600). Under `NODE_ENV=test` (the suites' in-process
 * servers and the images' smoke test) a missing secret falls back to a test-only value.
 */
import { DateTime, IANAZone } from 'luxon';
import {
  TEST_ONLY_SECRETS,
  csv,
  flag,
  logLevel,
  mongodbUri,
  nodeEnv,
  origin,
  parseEnvironment,
  port,
  redisFields,
  redisTopologyProblems,
  positiveInt,
  secretProblems,
  type Environment,
} from '@school/shared';
import { z } from 'zod';

export { ConfigError } from '@school/shared';

const seconds = positiveInt;
const perMinute = positiveInt;
const perWindow = positiveInt;

/** Where the signing keys are when KEYS_FILE is not set. */
export const DEFAULT_KEYS_FILE = '.data/keys/jwks.json';
const schema = z
  .object({
    NODE_ENV: nodeEnv,
    /** The public origin and issuer, e.g. `https://school.example`. */
    BASE_URL: origin('it is the issuer, byte for byte').default('http://127.0.0.1:8080'),
    /** Where this service listens. Defaults to BASE_URL's port while no edge sits in front. */
    AUTH_HOST: z.string().default('127.0.0.1'),
    AUTH_PORT: port().optional(),
    /** Trust X-Forwarded-Proto/Host/For (set when an edge proxy sits in front). */
    TRUST_PROXY: flag(false),
    ...redisFields('redis://127.0.0.1:6390'),
    /** Prefix of every Redis key this service writes; lets several deployments share a Redis. */
    REDIS_KEY_PREFIX: z.string().default('oidc:'),
    MONGODB_URI: mongodbUri('mongodb://127.0.0.1:27027/school'),
    /** Cookie signing keys, comma separated, newest first (prepend to rotate). */
    COOKIE_SECRETS: csv
      .pipe(z.array(z.string().min(32, 'each secret needs 32+ characters')).min(1))
      .optional(),
    /** Where the signing keys (JWKS with private keys) are kept; created on first start. */
    KEYS_FILE: z.string().default(DEFAULT_KEYS_FILE),
    /** The resource API's static introspection client. */
    INTROSPECTION_CLIENT_ID: z.string().min(1).default('resource-api'),
    INTROSPECTION_CLIENT_SECRET: z.string().min(32, 'needs 32+ characters').optional(),
    ACCESS_TOKEN_TTL: seconds(3600),
    AUTHORIZATION_CODE_TTL: seconds(60),
    /** Idle lifetime of a refresh token: each rotation issues a fresh one. */
    REFRESH_TOKEN_TTL: seconds(30 * 24 * 3600),
    /**
     * Seconds after a refresh token's rotation during which the same installation presenting it again
     * gets the grant's current refresh token and a fresh access token (agents sharing one stored
     * refresh token), not a revoked grant (provider/refresh-grace.ts); 0: off.
     */
    REFRESH_REUSE_GRACE: z.coerce.number().int().min(0).max(3600).default(600),
    /**
     * Absolute lifetime of a grant: no refresh token outlives it. It is what "until I take it back"
     * lasts on the consent page; the admin may choose a shorter access there.
     */
    GRANT_TTL: seconds(365 * 24 * 3600),
    /** The school's IANA time zone: "today" and "this week" on the consent page end at its midnight. */
    SCHOOL_TIMEZONE: z
      .string()
      .default('UTC')
      .refine((zone) => IANAZone.isValidZone(zone), 'must be an IANA time zone, e.g. Europe/Berlin or UTC'),
    /**
     * The last day of the school's term, `YYYY-MM-DD`: the consent page offers access "this term",
     * until the end of that day, while it is ahead. Unset: no such choice.
     */
    SCHOOL_TERM_ENDS: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date, YYYY-MM-DD')
      .refine((day) => DateTime.fromISO(day).isValid, 'must be a real date, YYYY-MM-DD')
      .optional(),
    /**
     * How long a sign-in is remembered in this browser. A school day by default: the pages are used
     * on shared school computers, where a 14-day session signs the next person in as the last one.
     */
    SESSION_TTL: seconds(8 * 3600),
    /** How long a login/consent page may stay open. */
    INTERACTION_TTL: seconds(30 * 60),
    LOG_LEVEL: logLevel,
    /** Prometheus metrics at `/metrics` on this port (off: no collection, and `/metrics` is a 404). */
    METRICS: flag(true),
    /**
     * The introspection client's requests for active access tokens answered without oidc-provider's
     * request pipeline, with oidc-provider's models deciding (http/direct-introspection.ts).
     */
    DIRECT_INTROSPECTION: flag(true),
    /** Authorization requests starting a flow, per minute from one address (each stores an interaction). */
    RATE_LIMIT_AUTHORIZATION: perMinute(300),
    /** Registrations per minute from one address. */
    RATE_LIMIT_REGISTRATION: perMinute(60),
    /** Token requests per minute per client and address. */
    RATE_LIMIT_TOKEN: perMinute(600),
    /** Introspection requests per minute per client and address (the resource API introspects for every user). */
    RATE_LIMIT_INTROSPECTION: perMinute(600_000),
    /** Revocation requests per minute per client and address. */
    RATE_LIMIT_REVOCATION: perMinute(600),
    /** Token/introspection/revocation requests per minute from one address that name no client. */
    RATE_LIMIT_PER_ADDRESS: perMinute(1200),
    /**
     * Failed sign-ins for one email from one address within LOGIN_WINDOW before that address is
     * refused for that email (the same email from other addresses is unaffected).
     */
    LOGIN_MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS: perWindow(10),
    /** Failed sign-ins from one address (any emails) within LOGIN_WINDOW before that address is refused. */
    LOGIN_MAX_FAILURES_PER_ADDRESS: perWindow(100),
    /**
     * Failed sign-ins for one email from all addresses within LOGIN_WINDOW after which every attempt
     * for it waits LOGIN_ACCOUNT_DELAY_MS, and the audit log records a suspected attack. Never a refusal.
     */
    LOGIN_ACCOUNT_DELAY_AFTER: perWindow(10),
    /** That delay, ms: small by design (at most 2000), so an attack on an account never locks its owner out. */
    LOGIN_ACCOUNT_DELAY_MS: z.coerce.number().int().min(0).max(2000).default(1000),
    /** Seconds the sign-in failure counts last. */
    LOGIN_WINDOW: seconds(15 * 60),
    /**
     * Whether an account that has a passkey may still sign in with its password. false: such an
     * account signs in with a passkey or a recovery code only (an admin can also switch the password
     * off for one account on Staff accounts).
     */
    PASSWORD_FALLBACK: flag(true),
    /**
     * Require a passkey sign-in before any authorization that grants a write scope (`<area>:write`):
     * a session signed in with a password is asked to sign in with a passkey first.
     */
    PASSKEY_FOR_WRITE_CONSENT: flag(false),
    /**
     * Device pairing (RFC 8628, device/device-pairing.ts) for agents that cannot receive a browser
     * redirect (SSH, containers, Codespaces, WSL): `off` (no device authorization endpoint, the grant is
     * unsupported), `integrations` (only operator integrations and metadata-document clients an operator
     * allowed, each listing the device_code grant type), `all` (self-registered clients too).
     */
    DEVICE_PAIRING: z.enum(['off', 'integrations', 'all']).default('off'),
    /** Device authorization requests per minute per client and address. */
    RATE_LIMIT_DEVICE_AUTHORIZATION: perMinute(30),
    /**
     * Wrong user codes one account may enter on the device pairing page within LOGIN_WINDOW before it
     * is refused there (a code is 8 letters of 20: guessing one takes billions of tries).
     */
    DEVICE_CODE_MAX_WRONG_PER_ACCOUNT: perWindow(5),
    /** Wrong user codes from one address (any accounts) within LOGIN_WINDOW before it is refused there. */
    DEVICE_CODE_MAX_WRONG_PER_ADDRESS: perWindow(20),
    /** Replaced by the limits above: refused when set, so a deployment does not silently lose it. */
    LOGIN_MAX_FAILURES_PER_ACCOUNT: z.string().optional(),
    /** Days security events are kept in the audit log (MongoDB TTL index). */
    AUDIT_RETENTION_DAYS: z.coerce.number().int().positive().default(90),
    /**
     * Seconds a self-registered client may go without completing an authorization (no token ever
     * issued or used) before the lifecycle sweep removes it with its grants (provider/client-sweep.ts).
     */
    CLIENT_UNUSED_TTL: seconds(24 * 3600),
    /** Seconds a self-registered client's tokens may go unused before the sweep removes it with them. */
    CLIENT_IDLE_TTL: seconds(90 * 24 * 3600),
    /** Seconds between lifecycle sweeps inside the server; 0: none (`school-auth clients sweep` still works). */
    CLIENT_SWEEP_INTERVAL: z.coerce.number().int().min(0).default(3600),
    /** Seconds a Client ID Metadata Document is reused at least, whatever its cache headers say. */
    CIMD_CACHE_MIN_SECONDS: z.coerce.number().int().min(0).default(300),
    /** Seconds a Client ID Metadata Document is reused at most, whatever its cache headers say. */
    CIMD_CACHE_MAX_SECONDS: seconds(24 * 3600),
    /** Seconds past its freshness a valid document may still be served while its host fails. */
    CIMD_STALE_SECONDS: z.coerce.number().int().min(0).default(3600),
    /** Milliseconds a metadata-document fetch may take in all (connect, TLS, answer). */
    CIMD_FETCH_TIMEOUT_MS: positiveInt(3000, 10_000),
    /** First fetches (of a document not held) per minute from one host (all instances together). */
    CIMD_FETCHES_PER_MINUTE_PER_HOST: perMinute(30),
    /** First fetches (of a document not held) per minute one client address may cause. */
    CIMD_FIRST_FETCHES_PER_MINUTE_PER_ADDRESS: perMinute(10),
    /**
     * Test suites only (refused otherwise): fetch metadata documents from loopback addresses too.
     * Every other deployment keeps the special-use-address rule, since Redis and the services
     * themselves listen on loopback.
     */
    CIMD_ALLOW_LOOPBACK: flag(false),
    /** Test suites only (refused otherwise): a PEM file of a CA trusted for metadata-document fetches. */
    CIMD_EXTRA_CA_FILE: z.string().optional(),
  })
  .superRefine((env, ctx) => {
    for (const { path, message } of redisTopologyProblems(env))
      ctx.addIssue({ code: 'custom', path: [path], message });
    for (const name of ['CIMD_ALLOW_LOOPBACK', 'CIMD_EXTRA_CA_FILE'] as const)
      if (env.NODE_ENV !== 'test' && env[name])
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: 'is for the test suites only (NODE_ENV=test)',
        });
    if (env.CIMD_CACHE_MIN_SECONDS > env.CIMD_CACHE_MAX_SECONDS)
      ctx.addIssue({
        code: 'custom',
        path: ['CIMD_CACHE_MIN_SECONDS'],
        message: 'must not exceed CIMD_CACHE_MAX_SECONDS',
      });
    if (env.LOGIN_MAX_FAILURES_PER_ACCOUNT !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['LOGIN_MAX_FAILURES_PER_ACCOUNT'],
        message:
          'no longer exists (an account-wide limit let anyone lock its owner out); use LOGIN_MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS, LOGIN_MAX_FAILURES_PER_ADDRESS and LOGIN_ACCOUNT_DELAY_AFTER',
      });
    for (const problem of secretProblems(env.NODE_ENV, {
      COOKIE_SECRETS: env.COOKIE_SECRETS,
      INTROSPECTION_CLIENT_SECRET: env.INTROSPECTION_CLIENT_SECRET,
    }))
      ctx.addIssue({ code: 'custom', ...problem });
  })
  .transform(({ LOGIN_MAX_FAILURES_PER_ACCOUNT: _gone, ...env }) => ({
    ...env,
    COOKIE_SECRETS: env.COOKIE_SECRETS ?? [TEST_ONLY_SECRETS.cookie],
    INTROSPECTION_CLIENT_SECRET: env.INTROSPECTION_CLIENT_SECRET ?? TEST_ONLY_SECRETS.introspection,
  }));

/** Names of every environment variable the auth server reads (docs/configuration.md lists them). */
export const CONFIG_KEYS = Object.keys(schema.in.shape) as (keyof z.input<typeof schema>)[];

/** The auth server's validated settings. */
export type AuthConfig = z.output<typeof schema> & {
  /** The port to listen on: AUTH_PORT, else BASE_URL's port. */
  port: number;
};

/** Parses the environment (default: `process.env`) into an {@link AuthConfig}, or throws {@link ConfigError}. */
export function loadConfig(env: Environment = process.env): AuthConfig {
  const parsed = parseEnvironment(schema, env);
  const base = new URL(parsed.BASE_URL);
  const port = parsed.AUTH_PORT ?? (Number(base.port) || (base.protocol === 'https:' ? 443 : 80));
  return { ...parsed, port };
}
