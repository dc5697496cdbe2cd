/**
 * The auth server's configuration table in docs/configuration.md, generated from the config schema's
 * variable names with a meaning and a default for each written here. A test holds the document, the
 * schema and these defaults to each other, so a variable added to `config.ts` fails it until it is
 * described. `scripts/docs-tables` writes the table (see `config-table-cli.ts`).
 */
import { CONFIG_KEYS } from '../config.js';

type Key = (typeof CONFIG_KEYS)[number];

/** The default of each variable as written in the environment; `''` for none. */
export const CONFIG_DEFAULTS: Record<Key, string> = {
  NODE_ENV: 'development',
  BASE_URL: 'http://127.0.0.1:8080',
  AUTH_HOST: '127.0.0.1',
  AUTH_PORT: '',
  TRUST_PROXY: 'false',
  REDIS_URL: 'redis://127.0.0.1:6390',
  REDIS_CLUSTER_NODES: '',
  REDIS_SENTINELS: '',
  REDIS_SENTINEL_NAME: '',
  REDIS_KEY_PREFIX: 'oidc:',
  MONGODB_URI: 'mongodb://127.0.0.1:27027/school',
  COOKIE_SECRETS: '',
  KEYS_FILE: '.data/keys/jwks.json',
  INTROSPECTION_CLIENT_ID: 'resource-api',
  INTROSPECTION_CLIENT_SECRET: '',
  ACCESS_TOKEN_TTL: '3600',
  AUTHORIZATION_CODE_TTL: '60',
  REFRESH_TOKEN_TTL: '2592000',
  REFRESH_REUSE_GRACE: '600',
  GRANT_TTL: '31536000',
  SCHOOL_TIMEZONE: 'UTC',
  SCHOOL_TERM_ENDS: '',
  SESSION_TTL: '28800',
  INTERACTION_TTL: '1800',
  LOG_LEVEL: 'info',
  METRICS: 'true',
  DIRECT_INTROSPECTION: 'true',
  RATE_LIMIT_AUTHORIZATION: '300',
  RATE_LIMIT_REGISTRATION: '60',
  RATE_LIMIT_TOKEN: '600',
  RATE_LIMIT_INTROSPECTION: '600000',
  RATE_LIMIT_REVOCATION: '600',
  RATE_LIMIT_PER_ADDRESS: '1200',
  LOGIN_MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS: '10',
  LOGIN_MAX_FAILURES_PER_ADDRESS: '100',
  LOGIN_ACCOUNT_DELAY_AFTER: '10',
  LOGIN_ACCOUNT_DELAY_MS: '1000',
  LOGIN_WINDOW: '900',
  LOGIN_MAX_FAILURES_PER_ACCOUNT: '',
  PASSWORD_FALLBACK: 'true',
  PASSKEY_FOR_WRITE_CONSENT: 'false',
  DEVICE_PAIRING: 'off',
  RATE_LIMIT_DEVICE_AUTHORIZATION: '30',
  DEVICE_CODE_MAX_WRONG_PER_ACCOUNT: '5',
  DEVICE_CODE_MAX_WRONG_PER_ADDRESS: '20',
  AUDIT_RETENTION_DAYS: '90',
  CLIENT_UNUSED_TTL: '86400',
  CLIENT_IDLE_TTL: '7776000',
  CLIENT_SWEEP_INTERVAL: '3600',
  CIMD_CACHE_MIN_SECONDS: '300',
  CIMD_CACHE_MAX_SECONDS: '86400',
  CIMD_STALE_SECONDS: '3600',
  CIMD_FETCH_TIMEOUT_MS: '3000',
  CIMD_FETCHES_PER_MINUTE_PER_HOST: '30',
  CIMD_FIRST_FETCHES_PER_MINUTE_PER_ADDRESS: '10',
  CIMD_ALLOW_LOOPBACK: 'false',
  CIMD_EXTRA_CA_FILE: '',
};

/** What each variable means, one table cell of Markdown. */
export const CONFIG_DOCS: Record<Key, string> = {
  NODE_ENV:
    '`development`, `test` or `production`; `test` alone lets the secrets default to test-only values; `production` also refuses a missing or published admin password at `seed-admin`.',
  BASE_URL: 'Public origin and issuer, byte for byte, no trailing slash.',
  AUTH_HOST: 'Interface to listen on.',
  AUTH_PORT: 'Port to listen on; unset: `BASE_URL`’s port (`scripts/start` sets 8082, behind the edge).',
  TRUST_PROXY:
    'Trust exactly one proxy hop, the edge: the client address is the right-most `X-Forwarded-For` entry (the edge overwrites the header with the address it saw). Keep the port private. `scripts/start` sets `true`.',
  REDIS_URL:
    'oidc-provider’s storage, one node; with a cluster or Sentinel only its user, password and `rediss:` (TLS) are used.',
  REDIS_CLUSTER_NODES:
    'Seed nodes of a Redis Cluster, `host:port,…`, instead of REDIS_URL’s node (the client finds the rest).',
  REDIS_SENTINELS: 'Sentinels, `host:port,…`, watching a primary with replicas, instead of REDIS_URL’s node.',
  REDIS_SENTINEL_NAME:
    'The primary’s name in Sentinel; needed with REDIS_SENTINELS (a cluster and Sentinel exclude each other).',
  REDIS_KEY_PREFIX: 'Prefix of every key (and of the `revocations` channel).',
  MONGODB_URI: 'MongoDB (or FerretDB) database of the accounts and the audit log.',
  COOKIE_SECRETS:
    'Comma-separated cookie signing keys (32+ characters each), newest first. Required unless NODE_ENV=test (`scripts/start` generates one into `.data/secrets.env`); values published in the repository are refused.',
  KEYS_FILE:
    'The signing keys (a JWKS with the private keys); created on first start, shared by every instance.',
  INTROSPECTION_CLIENT_ID: 'The resource API’s static introspection client.',
  INTROSPECTION_CLIENT_SECRET:
    'Its secret (32+ characters), the same as the resource API’s. Required unless NODE_ENV=test (`scripts/start` generates one); values published in the repository are refused.',
  ACCESS_TOKEN_TTL: 'Access and ID token lifetime, seconds.',
  AUTHORIZATION_CODE_TTL: 'Authorization code lifetime, seconds.',
  REFRESH_TOKEN_TTL: 'Idle lifetime of a refresh token, seconds (30 days; each rotation issues a fresh one).',
  REFRESH_REUSE_GRACE:
    'Seconds after a rotation during which the same installation (same client, and the same DPoP key or, for an unbound token, the address of the last refresh) presenting the rotated refresh token again gets the grant’s current refresh token and a fresh access token (agents sharing one stored token), not a revoked grant; anything else reusing it revokes the grant. `0`: off (strict rotation), at most `3600`.',
  GRANT_TTL: 'Absolute lifetime of a grant, seconds (365 days): no refresh token outlives it.',
  SCHOOL_TIMEZONE:
    'The school’s IANA time zone (e.g. `Europe/Berlin`): the consent page’s “Today” and “This week” end at its midnight, and it shows ends in it.',
  SCHOOL_TERM_ENDS:
    'The last day of the term, `YYYY-MM-DD`: the consent page offers access “This term”, until that day’s end in SCHOOL_TIMEZONE, while it is ahead. Unset: not offered.',
  SESSION_TTL:
    'How long a sign-in is remembered in a browser, seconds: a school day, for shared school computers ("Not you?" on the consent page and sign-out at `/oauth/session/end` end it sooner).',
  INTERACTION_TTL: 'How long a login or consent page stays valid, seconds.',
  LOG_LEVEL: '`debug`, `info`, `warn`, `error` or `silent`.',
  METRICS:
    'Prometheus metrics at `/metrics` on `AUTH_PORT` (never through the edge); `false`: nothing is collected and `/metrics` is a 404.',
  DIRECT_INTROSPECTION:
    'The introspection client’s requests for active access tokens answered without oidc-provider’s request pipeline, with oidc-provider’s models deciding (`http/direct-introspection.ts`; it takes values that need no percent-decoding, such as the hex secrets `scripts/start` generates); `false`: every introspection goes through oidc-provider.',
  RATE_LIMIT_AUTHORIZATION:
    'Authorization requests starting a flow, per minute from one address (each stores an interaction).',
  RATE_LIMIT_REGISTRATION: 'Registrations per minute from one address.',
  RATE_LIMIT_TOKEN: 'Token requests per minute per client and address.',
  RATE_LIMIT_INTROSPECTION:
    'Introspections per minute per client and address (the resource API introspects for every user).',
  RATE_LIMIT_REVOCATION: 'Revocations per minute per client and address.',
  RATE_LIMIT_PER_ADDRESS:
    'Token, introspection and revocation requests per minute from one address naming no client.',
  LOGIN_MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS:
    'Failed sign-ins for one email from one address within `LOGIN_WINDOW` before that address is refused for that email.',
  LOGIN_MAX_FAILURES_PER_ADDRESS:
    'Failed sign-ins from one address (any emails) within `LOGIN_WINDOW` before that address is refused.',
  LOGIN_ACCOUNT_DELAY_AFTER:
    'Failed sign-ins for one email from all addresses within `LOGIN_WINDOW` after which each attempt for it waits `LOGIN_ACCOUNT_DELAY_MS` and a `login_attack_suspected` audit event is written; never a refusal, so an attacker cannot lock the owner out.',
  LOGIN_ACCOUNT_DELAY_MS: 'That delay, milliseconds, at most 2000.',
  LOGIN_WINDOW: 'Seconds the sign-in failure counts last.',
  LOGIN_MAX_FAILURES_PER_ACCOUNT:
    'Not a setting: refused at start-up, because an account-wide refusal would let anyone lock the owner out; the three limits above apply instead.',
  PASSWORD_FALLBACK:
    '`true`: every account may sign in with its password; `false`: an account with a passkey signs in with the passkey or a recovery code only. An admin can switch the password off for one account on Staff accounts either way.',
  DEVICE_PAIRING:
    'Device pairing (RFC 8628) for agents that cannot receive a browser redirect: `off` (no `device_authorization_endpoint`, the grant type unsupported), `integrations` (operator integrations and metadata-document clients an operator allowed), `all` (self-registered clients too). A client must list the device_code grant type; the person signs in and types the code on `/oauth/device` (docs/decisions.md).',
  RATE_LIMIT_DEVICE_AUTHORIZATION: 'Device authorization requests per minute per client and address.',
  DEVICE_CODE_MAX_WRONG_PER_ACCOUNT:
    'Wrong user codes one account may enter on `/oauth/device` within `LOGIN_WINDOW` before it is refused there.',
  DEVICE_CODE_MAX_WRONG_PER_ADDRESS:
    'Wrong user codes from one address (any accounts) within `LOGIN_WINDOW` before it is refused on `/oauth/device`.',
  PASSKEY_FOR_WRITE_CONSENT:
    '`true`: an authorization naming a write scope (`<area>:write`) needs a session signed in with a passkey; a password sign-in is asked to sign in with a passkey first.',
  AUDIT_RETENTION_DAYS: 'Days security events are kept in the audit log.',
  CLIENT_UNUSED_TTL:
    'Seconds a self-registered client may go without completing an authorization before the sweep removes it with its grants.',
  CLIENT_IDLE_TTL:
    'Seconds a self-registered client’s tokens may go unused (90 days) before it is removed with its grants and tokens.',
  CLIENT_SWEEP_INTERVAL:
    'Seconds between sweeps inside the server; `0` turns them off (`school-auth clients sweep` still works).',
  CIMD_CACHE_MIN_SECONDS:
    'Seconds a Client ID Metadata Document is reused at least, whatever its cache headers say (`0` allowed).',
  CIMD_CACHE_MAX_SECONDS: 'Seconds it is reused at most.',
  CIMD_STALE_SECONDS: 'Seconds past its freshness a valid document may still be served while its host fails.',
  CIMD_FETCH_TIMEOUT_MS: 'The whole fetch of a document (connect, TLS, answer), milliseconds, at most 10000.',
  CIMD_FETCHES_PER_MINUTE_PER_HOST:
    'First fetches (of a document not held) per minute to one host, all instances together; refreshing a held document spends none.',
  CIMD_FIRST_FETCHES_PER_MINUTE_PER_ADDRESS:
    'First fetches (of a document not held) per minute one client address may cause; over it `429` with `Retry-After`.',
  CIMD_ALLOW_LOOPBACK:
    'Test suites only (refused unless `NODE_ENV=test`): fetch documents from loopback addresses too.',
  CIMD_EXTRA_CA_FILE:
    'Test suites only (refused unless `NODE_ENV=test`): a PEM file of a CA trusted for document fetches.',
};

/** One row per environment variable, in the schema's order (an empty default reads `none`). */
export function configTable(): string {
  const shown = (value: string) => (value ? `\`${value}\`` : 'none');
  const rows = CONFIG_KEYS.map(
    (key) => `| \`${key}\` | ${shown(CONFIG_DEFAULTS[key])} | ${CONFIG_DOCS[key]} |`,
  );
  return ['| Variable | Default | Meaning |', '| --- | --- | --- |', ...rows].join('\n');
}

/** The name of the table's section in docs/configuration.md (`<!-- name:start -->` … `<!-- name:end -->`). */
export const SECTION = 'auth-env-table';

/** Replaces the text between the section's markers with `body`. */
export function withSection(markdown: string, body: string): string {
  const start = `<!-- ${SECTION}:start -->`;
  const end = `<!-- ${SECTION}:end -->`;
  const from = markdown.indexOf(start);
  const to = markdown.indexOf(end);
  if (from < 0 || to < from) throw new Error(`no ${SECTION} section`);
  return `${markdown.slice(0, from + start.length)}\n${body}\n${markdown.slice(to)}`;
}

/** The text between the section's markers, or undefined. */
export function section(markdown: string): string | undefined {
  return new RegExp(`<!-- ${SECTION}:start -->\\n([\\s\\S]*?)\\n<!-- ${SECTION}:end -->`).exec(markdown)?.[1];
}
