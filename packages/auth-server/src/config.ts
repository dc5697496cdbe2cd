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
  settingsOf,
  documented,
  type Environment,
} from '@school/shared';
import { z } from 'zod';

export { ConfigError } from '@school/shared';

const seconds = positiveInt;
const perMinute = positiveInt;
const perWindow = positiveInt;

/** Where the signing keys are when KEYS_FILE is not set. */
export const DEFAULT_KEYS_FILE = '.data/keys/jwks.json';
const fields = z
  .object({
    NODE_ENV: documented(
      nodeEnv,
      '`development`, `test` or `production`; `test` alone lets the secrets default to test-only values; `production` also refuses a missing or published admin password at `seed-admin`.',
    ),
    BASE_URL: documented(
      origin('it is the issuer, byte for byte').default('http://127.0.0.1:8080'),
      'Public origin and issuer, byte for byte, no trailing slash.',
    ),
    AUTH_HOST: documented(z.string().default('127.0.0.1'), 'Interface to listen on.'),
    AUTH_PORT: documented(
      port().optional(),
      'Port to listen on; unset: `BASE_URL`’s port (`scripts/start` sets 8082, behind the edge).',
    ),
    TRUST_PROXY: documented(
      flag(false),
      'Trust exactly one proxy hop, the edge: the client address is the right-most `X-Forwarded-For` entry (the edge overwrites the header with the address it saw). Keep the port private. `scripts/start` sets `true`.',
    ),
    ...redisFields('redis://127.0.0.1:6390', {
      REDIS_URL:
        'oidc-provider’s storage, one node; with a cluster or Sentinel only its user, password and `rediss:` (TLS) are used.',
      REDIS_CLUSTER_NODES:
        'Seed nodes of a Redis Cluster, `host:port,…`, instead of REDIS_URL’s node (the client finds the rest).',
      REDIS_SENTINELS:
        'Sentinels, `host:port,…`, watching a primary with replicas, instead of REDIS_URL’s node.',
      REDIS_SENTINEL_NAME:
        'The primary’s name in Sentinel; needed with REDIS_SENTINELS (a cluster and Sentinel exclude each other).',
    }),
    REDIS_KEY_PREFIX: documented(
      z.string().default('oidc:'),
      'Prefix of every key (and of the `revocations` channel).',
    ),
    MONGODB_URI: documented(
      mongodbUri('mongodb://127.0.0.1:27027/school'),
      'MongoDB (or FerretDB) database of the accounts and the audit log.',
    ),
    COOKIE_SECRETS: documented(
      csv.pipe(z.array(z.string().min(32, 'each secret needs 32+ characters')).min(1)).optional(),
      'Comma-separated cookie signing keys (32+ characters each), newest first. Required unless NODE_ENV=test (`scripts/start` generates one into `.data/secrets.env`); values published in the repository are refused.',
    ),
    KEYS_FILE: documented(
      z.string().default(DEFAULT_KEYS_FILE),
      'The signing keys (a JWKS with the private keys); created on first start, shared by every instance.',
    ),
    INTROSPECTION_CLIENT_ID: documented(
      z.string().min(1).default('resource-api'),
      'The resource API’s static introspection client.',
    ),
    INTROSPECTION_CLIENT_SECRET: documented(
      z.string().min(32, 'needs 32+ characters').optional(),
      'Its secret (32+ characters), the same as the resource API’s. Required unless NODE_ENV=test (`scripts/start` generates one); values published in the repository are refused.',
    ),
    ACCESS_TOKEN_TTL: documented(seconds(3600), 'Access and ID token lifetime, seconds.'),
    AUTHORIZATION_CODE_TTL: documented(seconds(60), 'Authorization code lifetime, seconds.'),
    REFRESH_TOKEN_TTL: documented(
      seconds(30 * 24 * 3600),
      'Idle lifetime of a refresh token, seconds (30 days; each rotation issues a fresh one).',
    ),
    REFRESH_REUSE_GRACE: documented(
      z.coerce.number().int().min(0).max(3600).default(600),
      'Seconds after a rotation during which the same installation (same client, and the same DPoP key or, for an unbound token, the address of the last refresh) presenting the rotated refresh token again gets the grant’s current refresh token and a fresh access token (agents sharing one stored token), not a revoked grant; anything else reusing it revokes the grant. `0`: off (strict rotation), at most `3600`.',
    ),
    HOSTED_REFRESH_RACE: documented(
      z.coerce.number().int().min(0).max(300).default(30),
      'Seconds after a rotation during which a hosted client (every redirect URI a fixed https callback: an operator’s integration, or a metadata-document client allowed with `school-auth clients allow-cimd`) presenting the refresh token that rotation replaced from another address gets the grant’s current refresh token (its workers refresh in parallel from a pool of addresses); later, or a token a generation older, from another address revokes the grant. Addresses inside the client’s listed egress ranges (`school-auth clients set-egress`) are one installation for the whole `REFRESH_REUSE_GRACE`. `0`: off; at most `300`, and never more than `REFRESH_REUSE_GRACE`.',
    ),
    GRANT_TTL: documented(
      seconds(365 * 24 * 3600),
      'Absolute lifetime of a grant, seconds (365 days): no refresh token outlives it.',
    ),
    SCHOOL_TIMEZONE: documented(
      z
        .string()
        .default('UTC')
        .refine((zone) => IANAZone.isValidZone(zone), 'must be an IANA time zone, e.g. Europe/Berlin or UTC'),
      'The school’s IANA time zone (e.g. `Europe/Berlin`): the consent page’s “Today” and “This week” end at its midnight, and it shows ends in it.',
    ),
    SCHOOL_TERM_ENDS: documented(
      z
        .string()
        .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date, YYYY-MM-DD')
        .refine((day) => DateTime.fromISO(day).isValid, 'must be a real date, YYYY-MM-DD')
        .optional(),
      'The last day of the term, `YYYY-MM-DD`: the consent page offers access “This term”, until that day’s end in SCHOOL_TIMEZONE, while it is ahead. Unset: not offered.',
    ),
    SESSION_TTL: documented(
      seconds(8 * 3600),
      'How long a sign-in is remembered in a browser, seconds: a school day, for shared school computers ("Not you?" on the consent page and sign-out at `/oauth/session/end` end it sooner).',
    ),
    INTERACTION_TTL: documented(seconds(30 * 60), 'How long a login or consent page stays valid, seconds.'),
    LOG_LEVEL: documented(logLevel, '`debug`, `info`, `warn`, `error` or `silent`.'),
    METRICS: documented(
      flag(true),
      'Prometheus metrics at `/metrics` on `AUTH_PORT` (never through the edge); `false`: nothing is collected and `/metrics` is a 404.',
    ),
    DIRECT_INTROSPECTION: documented(
      flag(true),
      'The introspection client’s requests for active access tokens answered without oidc-provider’s request pipeline, with oidc-provider’s models deciding (`http/direct-introspection.ts`; it takes values that need no percent-decoding, such as the hex secrets `scripts/start` generates); `false`: every introspection goes through oidc-provider.',
    ),
    RATE_LIMIT_AUTHORIZATION: documented(
      perMinute(300),
      'Authorization requests starting a flow, per minute from one address (each stores an interaction).',
    ),
    RATE_LIMIT_REGISTRATION: documented(perMinute(60), 'Registrations per minute from one address.'),
    RATE_LIMIT_TOKEN: documented(perMinute(600), 'Token requests per minute per client and address.'),
    RATE_LIMIT_INTROSPECTION: documented(
      perMinute(600_000),
      'Introspections per minute per client and address (the resource API introspects for every user).',
    ),
    RATE_LIMIT_REVOCATION: documented(perMinute(600), 'Revocations per minute per client and address.'),
    RATE_LIMIT_PER_ADDRESS: documented(
      perMinute(1200),
      'Token, introspection and revocation requests per minute from one address naming no client.',
    ),
    LOGIN_MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS: documented(
      perWindow(10),
      'Failed sign-ins for one email from one address within `LOGIN_WINDOW` before that address is refused for that email.',
    ),
    LOGIN_MAX_FAILURES_PER_ADDRESS: documented(
      perWindow(100),
      'Failed sign-ins from one address (any emails) within `LOGIN_WINDOW` before that address is refused.',
    ),
    LOGIN_ACCOUNT_DELAY_AFTER: documented(
      perWindow(10),
      'Failed sign-ins for one email from all addresses within `LOGIN_WINDOW` after which each attempt for it waits `LOGIN_ACCOUNT_DELAY_MS` and a `login_attack_suspected` audit event is written; never a refusal, so an attacker cannot lock the owner out.',
    ),
    LOGIN_ACCOUNT_DELAY_MS: documented(
      z.coerce.number().int().min(0).max(2000).default(1000),
      'That delay, milliseconds, at most 2000.',
    ),
    LOGIN_WINDOW: documented(seconds(15 * 60), 'Seconds the sign-in failure counts last.'),
    PASSWORD_FALLBACK: documented(
      flag(true),
      '`true`: every account may sign in with its password; `false`: an account with a passkey signs in with the passkey or a recovery code only. An admin can switch the password off for one account on Staff accounts either way.',
    ),
    PASSKEY_FOR_WRITE_CONSENT: documented(
      flag(false),
      '`true`: an authorization naming a write scope (`<area>:write`) needs a session signed in with a passkey; a password sign-in is asked to sign in with a passkey first.',
    ),
    APP_REVIEW_UNREVIEWED: documented(
      z.enum(['allowed', 'ask-admin']).default('allowed'),
      'What an app no admin has reviewed may do (App reviews, `school-auth apps allow|block`): `allowed` (it connects as any app the school allowed), `ask-admin` (its authorization ends on a page where the person asks the admins to review it; the app gets `access_denied`). Integrations an operator created count as allowed; a blocked app is refused either way (docs/decisions.md).',
    ),
    DEVICE_PAIRING: documented(
      z.enum(['off', 'integrations', 'all']).default('off'),
      'Device pairing (RFC 8628) for agents that cannot receive a browser redirect: `off` (no `device_authorization_endpoint`, the grant type unsupported), `integrations` (operator integrations and metadata-document clients an operator allowed), `all` (self-registered clients and every metadata document too). A client must list the device_code grant type; the person signs in and types the code on `/oauth/device` (docs/decisions.md).',
    ),
    RATE_LIMIT_DEVICE_AUTHORIZATION: documented(
      perMinute(30),
      'Device authorization requests per minute per client and address.',
    ),
    DEVICE_CODE_MAX_WRONG_PER_ACCOUNT: documented(
      perWindow(5),
      'Wrong user codes one account may enter on `/oauth/device` within `LOGIN_WINDOW` before it is refused there.',
    ),
    DEVICE_CODE_MAX_WRONG_PER_ADDRESS: documented(
      perWindow(20),
      'Wrong user codes from one address (any accounts) within `LOGIN_WINDOW` before it is refused on `/oauth/device`.',
    ),
    LOGIN_MAX_FAILURES_PER_ACCOUNT: documented(
      z.string().optional(),
      'Not a setting: refused at start-up, because an account-wide refusal would let anyone lock the owner out; the three limits above apply instead.',
    ),
    AUDIT_RETENTION_DAYS: documented(
      z.coerce.number().int().positive().default(90),
      'Days security events are kept in the audit log.',
    ),
    APPROVAL_REQUEST_DAYS: documented(
      z.coerce.number().int().min(1).max(365).default(14),
      'Days an Ask an admin request waits for an admin’s decision on the Approvals page before it expires (from 1 to 365).',
    ),
    CLIENT_UNUSED_TTL: documented(
      seconds(24 * 3600),
      'Seconds a self-registered client may go without completing an authorization before the sweep removes it with its grants.',
    ),
    CLIENT_IDLE_TTL: documented(
      seconds(90 * 24 * 3600),
      'Seconds a self-registered client’s tokens may go unused (90 days) before it is removed with its grants and tokens.',
    ),
    CLIENT_SWEEP_INTERVAL: documented(
      z.coerce.number().int().min(0).default(3600),
      'Seconds between sweeps inside the server; `0` turns them off (`school-auth clients sweep` still works).',
    ),
    CIMD_CACHE_MIN_SECONDS: documented(
      z.coerce.number().int().min(0).default(300),
      'Seconds a Client ID Metadata Document is reused at least, whatever its cache headers say (`0` allowed).',
    ),
    CIMD_CACHE_MAX_SECONDS: documented(seconds(24 * 3600), 'Seconds it is reused at most.'),
    CIMD_STALE_SECONDS: documented(
      z.coerce.number().int().min(0).default(3600),
      'Seconds past its freshness a valid document may still be served while its host fails.',
    ),
    CIMD_FETCH_TIMEOUT_MS: documented(
      positiveInt(3000, 10_000),
      'The whole fetch of a document (connect, TLS, answer), milliseconds, at most 10000.',
    ),
    CIMD_FETCHES_PER_MINUTE_PER_HOST: documented(
      perMinute(30),
      'First fetches (of a document not held) per minute to one host, all instances together; one address may spend a tenth of it (at least 1); refreshing a held document spends none.',
    ),
    CIMD_FIRST_FETCHES_PER_MINUTE_PER_ADDRESS: documented(
      perMinute(10),
      'First fetches (of a document not held) per minute one client address may cause; over it `429` with `Retry-After`.',
    ),
    CIMD_ALLOW_LOOPBACK: documented(
      flag(false),
      'Test suites only (refused unless `NODE_ENV=test`): fetch documents from loopback addresses too.',
    ),
    CIMD_EXTRA_CA_FILE: documented(
      z.string().optional(),
      'Test suites only (refused unless `NODE_ENV=test`): a PEM file of a CA trusted for document fetches.',
    ),
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
  });

/** The server's settings: the fields, with both secrets required outside the test suites. */
const schema = fields
  .superRefine((env, ctx) => {
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

/**
 * What a command that only reads or changes the storage needs (`school-auth accounts list`,
 * `activity`, …): the same fields checked the same way, without the secrets, which it neither
 * needs nor is given.
 */
const storageSchema = fields.transform(
  ({
    LOGIN_MAX_FAILURES_PER_ACCOUNT: _gone,
    COOKIE_SECRETS: _cookies,
    INTROSPECTION_CLIENT_SECRET: _introspection,
    ...env
  }) => env,
);

/** Names of every environment variable the auth server reads. */
export const CONFIG_KEYS = Object.keys(schema.in.shape) as (keyof z.input<typeof schema>)[];

/** Every variable with its default and meaning, as declared above (docs/configuration.md, the example file). */
export const SETTINGS = settingsOf(schema.in.shape);

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

/** The settings of the storage alone (no secrets): {@link loadConfig} for a command that needs no more. */
export type StorageConfig = z.output<typeof storageSchema>;

/** Parses the environment into a {@link StorageConfig}, or throws {@link ConfigError}. */
export function loadStorageConfig(env: Environment = process.env): StorageConfig {
  return parseEnvironment(storageSchema, env);
}
