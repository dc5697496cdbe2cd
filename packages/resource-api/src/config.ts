/**
 * The resource API's deployment settings, read from the environment once, in `main.ts`.
 *
 * Same approach as the auth server's: one zod schema, a working local default for every address and
 * limit, and a bad environment stops the process with every problem listed at once. Nothing else in
 * the package reads `process.env`.
 *
 * The introspection secret has no default outside the test suites: a value
 * written in the source lets anyone who read it introspect every token as this API. Unless
 * `NODE_ENV=test` it must be given and must not be one of the values ever published in the
 * repository (`@school/shared` secrets.ts); `scripts/start` generates one per installation into
 * `.data/secrets.env`. Under `NODE_ENV=test` a missing one falls back to a test-only value.
 */
import {
  DISCOVERY_PATHS,
  TEST_ONLY_SECRETS,
  byteSize,
  flag,
  logLevel,
  mongodbUri,
  nodeEnv,
  origin,
  parseEnvironment,
  port,
  positiveInt,
  redisFields,
  redisTopologyProblems,
  secretProblems,
  type Environment,
} from '@school/shared';
import { z } from 'zod';

export { ConfigError } from '@school/shared';

const seconds = positiveInt;

const schema = z
  .object({
    NODE_ENV: nodeEnv,
    /** The public origin: the resource identifier, the issuer, and the base of every documented URL. */
    BASE_URL: origin('it is the resource identifier and the issuer, byte for byte').default(
      'http://127.0.0.1:8080',
    ),
    /** Where this service listens (behind the edge). */
    API_HOST: z.string().default('127.0.0.1'),
    API_PORT: port().default(8081),
    /** Trust X-Forwarded-* (set when an edge proxy sits in front). */
    TRUST_PROXY: flag(false),
    /** The auth server's own address, for introspection; not through the edge. */
    AUTH_INTERNAL_URL: origin('the auth server origin').default('http://127.0.0.1:8082'),
    /** This API's static confidential client at the auth server (client_secret_post). */
    INTROSPECTION_CLIENT_ID: z.string().min(1).default('resource-api'),
    INTROSPECTION_CLIENT_SECRET: z.string().min(32, 'needs 32+ characters').optional(),
    /** How long one introspection call may take before the API answers 503. */
    INTROSPECTION_TIMEOUT_MS: z.coerce.number().int().positive().max(60_000).default(3000),
    /** Upper bound (seconds) on caching an active introspection result: the revocation-delay budget. */
    INTROSPECTION_CACHE_TTL: seconds(60, 3600),
    /** How many active tokens the cache keeps (LRU). */
    INTROSPECTION_CACHE_SIZE: z.coerce.number().int().positive().default(10_000),
    /** How long (seconds) an inactive/unknown token is remembered, in a separate small cache. */
    NEGATIVE_CACHE_TTL: seconds(5, 300),
    NEGATIVE_CACHE_SIZE: z.coerce.number().int().positive().default(1000),
    MONGODB_URI: mongodbUri('mongodb://127.0.0.1:27027/school'),
    ...redisFields('redis://127.0.0.1:6390'),
    /** The auth server's key prefix; revocations arrive on `<prefix>revocations`. */
    REDIS_KEY_PREFIX: z.string().default('oidc:'),
    /** Largest JSON request body. */
    BODY_LIMIT: byteSize('100kb'),
    /** Largest file accepted by `POST /api/v1/storage`. */
    UPLOAD_LIMIT: byteSize('25mb'),
    /** Longest a client may take to send a whole request (headers and body); past it: 408, closed. */
    REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(120_000),
    LOG_LEVEL: logLevel,
    /** Prometheus metrics at `/metrics` on this port (off: no collection, and `/metrics` is a 404). */
    METRICS: flag(true),
  })
  .superRefine((env, ctx) => {
    for (const { path, message } of redisTopologyProblems(env))
      ctx.addIssue({ code: 'custom', path: [path], message });
    for (const problem of secretProblems(env.NODE_ENV, {
      INTROSPECTION_CLIENT_SECRET: env.INTROSPECTION_CLIENT_SECRET,
    }))
      ctx.addIssue({ code: 'custom', ...problem });
    if (env.NEGATIVE_CACHE_TTL > env.INTROSPECTION_CACHE_TTL)
      ctx.addIssue({
        code: 'custom',
        path: ['NEGATIVE_CACHE_TTL'],
        message: 'must not exceed INTROSPECTION_CACHE_TTL',
      });
  });

/** The resource API's validated settings. */
export type ApiConfig = Omit<z.output<typeof schema>, 'INTROSPECTION_CLIENT_SECRET'> & {
  INTROSPECTION_CLIENT_SECRET: string;
};

/** What each environment variable means (docs/configuration.md's table is generated from this). */
export const CONFIG_DOCS: Record<keyof ApiConfig, string> = {
  NODE_ENV:
    '`development`, `test` or `production`; outside `test` a real INTROSPECTION_CLIENT_SECRET is required.',
  BASE_URL:
    'Public origin, no trailing slash: the resource identifier, the issuer and the base of every documented URL.',
  API_HOST: 'Interface to listen on.',
  API_PORT: 'Port to listen on (behind the edge).',
  TRUST_PROXY: 'Trust `X-Forwarded-*` (set when the edge proxy sits in front).',
  AUTH_INTERNAL_URL:
    'The auth server’s own origin, for introspection (not through the edge; `scripts/start` with several auth servers uses the edge, which spreads the calls over them).',
  INTROSPECTION_CLIENT_ID: 'This API’s static client at the auth server.',
  INTROSPECTION_CLIENT_SECRET:
    'Its secret (client_secret_post), 32+ characters; must equal the auth server’s. Required unless NODE_ENV=test (`scripts/start` generates one into `.data/secrets.env`); values published in the repository are refused.',
  INTROSPECTION_TIMEOUT_MS: 'Deadline of one introspection call; past it the API answers 503.',
  INTROSPECTION_CACHE_TTL:
    'Seconds an active introspection result may be cached at most (also bounded by the token’s `exp`).',
  INTROSPECTION_CACHE_SIZE: 'Most active tokens cached (LRU).',
  NEGATIVE_CACHE_TTL: 'Seconds an inactive or unknown token is remembered (separate cache).',
  NEGATIVE_CACHE_SIZE: 'Most inactive tokens remembered.',
  MONGODB_URI:
    'MongoDB (or FerretDB) database; the same database as the auth server’s (the `account` area reads `accounts`).',
  REDIS_URL:
    'Redis, for the revocation feed (one node); with a cluster or Sentinel only its user, password and `rediss:` (TLS) are used.',
  REDIS_CLUSTER_NODES: 'Seed nodes of a Redis Cluster (`host:port,…`), instead of one node at REDIS_URL.',
  REDIS_SENTINELS: 'Sentinels (`host:port,…`) watching a primary with replicas, instead of REDIS_URL’s node.',
  REDIS_SENTINEL_NAME: 'The primary’s name in Sentinel; needed with REDIS_SENTINELS.',
  REDIS_KEY_PREFIX: 'The auth server’s key prefix; revocations arrive on `<prefix>revocations`.',
  BODY_LIMIT: 'Largest JSON request body (`100kb`, `1mb`, bytes).',
  UPLOAD_LIMIT: 'Largest file for `POST /api/v1/storage`.',
  REQUEST_TIMEOUT_MS:
    'Longest a client may take to send a whole request (an upload included); past it 408 and the connection is closed.',
  LOG_LEVEL: '`debug`, `info`, `warn`, `error` or `silent`.',
  METRICS:
    'Prometheus metrics at `/metrics` on `API_PORT` (never through the edge); `false`: nothing is collected and `/metrics` is a 404.',
};

/** Names of every environment variable the service reads. */
export const CONFIG_KEYS = Object.keys(schema.shape) as (keyof ApiConfig)[];

/** The default of each variable, as written in the environment. */
export const CONFIG_DEFAULTS: Record<string, string> = {
  NODE_ENV: 'development',
  BASE_URL: 'http://127.0.0.1:8080',
  API_HOST: '127.0.0.1',
  API_PORT: '8081',
  TRUST_PROXY: 'false',
  AUTH_INTERNAL_URL: 'http://127.0.0.1:8082',
  INTROSPECTION_CLIENT_ID: 'resource-api',
  INTROSPECTION_CLIENT_SECRET: '(required; a test-only value under NODE_ENV=test)',
  INTROSPECTION_TIMEOUT_MS: '3000',
  INTROSPECTION_CACHE_TTL: '60',
  INTROSPECTION_CACHE_SIZE: '10000',
  NEGATIVE_CACHE_TTL: '5',
  NEGATIVE_CACHE_SIZE: '1000',
  MONGODB_URI: 'mongodb://127.0.0.1:27027/school',
  REDIS_URL: 'redis://127.0.0.1:6390',
  REDIS_CLUSTER_NODES: '',
  REDIS_SENTINELS: '',
  REDIS_SENTINEL_NAME: '',
  REDIS_KEY_PREFIX: 'oidc:',
  BODY_LIMIT: '100kb',
  UPLOAD_LIMIT: '25mb',
  REQUEST_TIMEOUT_MS: '120000',
  LOG_LEVEL: 'info',
  METRICS: 'true',
};

/** Parses the environment (default: `process.env`) into an {@link ApiConfig}, or throws {@link ConfigError}. */
export function loadConfig(env: Environment = process.env): ApiConfig {
  const parsed = parseEnvironment(schema, env);
  return {
    ...parsed,
    INTROSPECTION_CLIENT_SECRET: parsed.INTROSPECTION_CLIENT_SECRET ?? TEST_ONLY_SECRETS.introspection,
  };
}

/** The URL of this API's Protected Resource Metadata (RFC 9728). */
export function prmUrl(config: Pick<ApiConfig, 'BASE_URL'>): string {
  return `${config.BASE_URL}${DISCOVERY_PATHS.protectedResource}`;
}
