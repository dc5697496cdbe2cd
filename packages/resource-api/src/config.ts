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
  settingsOf,
  documented,
  type Environment,
} from '@school/shared';
import { z } from 'zod';

export { ConfigError } from '@school/shared';

const seconds = positiveInt;

const schema = z
  .object({
    NODE_ENV: documented(
      nodeEnv,
      '`development`, `test` or `production`; outside `test` a real INTROSPECTION_CLIENT_SECRET is required.',
    ),
    BASE_URL: documented(
      origin('it is the resource identifier and the issuer, byte for byte').default('http://127.0.0.1:8080'),
      'Public origin, no trailing slash: the resource identifier, the issuer and the base of every documented URL.',
    ),
    API_HOST: documented(z.string().default('127.0.0.1'), 'Interface to listen on.'),
    API_PORT: documented(port().default(8081), 'Port to listen on (behind the edge).'),
    TRUST_PROXY: documented(flag(false), 'Trust `X-Forwarded-*` (set when the edge proxy sits in front).'),
    AUTH_INTERNAL_URL: documented(
      origin('the auth server origin').default('http://127.0.0.1:8082'),
      'The auth server’s own origin, for introspection (not through the edge; `scripts/start` with several auth servers uses the edge, which spreads the calls over them).',
    ),
    INTROSPECTION_CLIENT_ID: documented(
      z.string().min(1).default('resource-api'),
      'This API’s static client at the auth server.',
    ),
    INTROSPECTION_CLIENT_SECRET: documented(
      z.string().min(32, 'needs 32+ characters').optional(),
      'Its secret (client_secret_post), 32+ characters; must equal the auth server’s. Required unless NODE_ENV=test (`scripts/start` generates one into `.data/secrets.env`); values published in the repository are refused.',
    ),
    INTROSPECTION_TIMEOUT_MS: documented(
      z.coerce.number().int().positive().max(60_000).default(3000),
      'Deadline of one introspection call; past it the API answers 503.',
    ),
    INTROSPECTION_CACHE_TTL: documented(
      seconds(60, 3600),
      'Seconds an active introspection result may be cached at most (also bounded by the token’s `exp`).',
    ),
    INTROSPECTION_CACHE_SIZE: documented(
      z.coerce.number().int().positive().default(10_000),
      'Most active tokens cached (LRU).',
    ),
    NEGATIVE_CACHE_TTL: documented(
      seconds(5, 300),
      'Seconds an inactive or unknown token is remembered (separate cache).',
    ),
    NEGATIVE_CACHE_SIZE: documented(
      z.coerce.number().int().positive().default(1000),
      'Most inactive tokens remembered.',
    ),
    MONGODB_URI: documented(
      mongodbUri('mongodb://127.0.0.1:27027/school'),
      'MongoDB (or FerretDB) database; the same database as the auth server’s (the `account` area reads `accounts`).',
    ),
    ...redisFields('redis://127.0.0.1:6390', {
      REDIS_URL:
        'Redis, for the revocation feed (one node); with a cluster or Sentinel only its user, password and `rediss:` (TLS) are used.',
      REDIS_CLUSTER_NODES: 'Seed nodes of a Redis Cluster (`host:port,…`), instead of one node at REDIS_URL.',
      REDIS_SENTINELS:
        'Sentinels (`host:port,…`) watching a primary with replicas, instead of REDIS_URL’s node.',
      REDIS_SENTINEL_NAME: 'The primary’s name in Sentinel; needed with REDIS_SENTINELS.',
    }),
    REDIS_KEY_PREFIX: documented(
      z.string().default('oidc:'),
      'The auth server’s key prefix; revocations arrive on `<prefix>revocations`.',
    ),
    BODY_LIMIT: documented(byteSize('100kb'), 'Largest JSON request body (`100kb`, `1mb`, bytes).', '100kb'),
    UPLOAD_LIMIT: documented(byteSize('25mb'), 'Largest file for `POST /api/v1/storage`.', '25mb'),
    REQUEST_TIMEOUT_MS: documented(
      z.coerce.number().int().min(1000).max(3_600_000).default(120_000),
      'Longest a client may take to send a whole request (an upload included); past it 408 and the connection is closed.',
    ),
    LOG_LEVEL: documented(logLevel, '`debug`, `info`, `warn`, `error` or `silent`.'),
    METRICS: documented(
      flag(true),
      'Prometheus metrics at `/metrics` on `API_PORT` (never through the edge); `false`: nothing is collected and `/metrics` is a 404.',
    ),
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

/** Names of every environment variable the service reads. */
export const CONFIG_KEYS = Object.keys(schema.shape) as (keyof ApiConfig)[];

/** Every variable with its default and meaning, as declared above (docs/configuration.md, the example file). */
export const SETTINGS = settingsOf(schema.shape);

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
