/**
 * The pieces both services' config schemas are made of: the field types that
 * mean the same thing in both (a public origin, a Redis or MongoDB URL, a lifetime, a byte size, a
 * flag), the parse that reports every problem at once, and the error it throws.
 *
 * Each service still owns its one schema (`src/config.ts`) and its defaults; only how a value is
 * read and checked lives here, so `BASE_URL` or `REDIS_URL` cannot be accepted by one service and
 * refused by the other. The environment is passed in: nothing here reads `process.env`.
 */
import { z } from 'zod';
import { documented } from './settings-docs.js';

/** The environment as a config module receives it. */
export type Environment = Record<string, string | undefined>;

/** Thrown by {@link parseEnvironment} with every problem of the environment in its message. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses `env` with `schema`, an empty variable counting as unset, or throws {@link ConfigError}
 * naming every problem as `VARIABLE: what is wrong`.
 */
export function parseEnvironment<S extends z.ZodType>(schema: S, env: Environment): z.output<S> {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(present);
  if (!parsed.success)
    throw new ConfigError(
      parsed.error.issues.map((i) => `${i.path.join('.') || 'environment'}: ${i.message}`),
    );
  return parsed.data;
}

/** `development`, `test` or `production`; `test` alone admits the test-only secrets. */
export const nodeEnv = z.enum(['development', 'test', 'production']).default('development');

/** The log level of pino. */
export const logLevel = z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info');

/** `true`/`1` or `false`/`0`, as a boolean. */
export const flag = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1');

/** A positive whole number (of the unit the variable's name says), at most `max` when given. */
export const positiveInt = (fallback: number, max?: number) => {
  const n = z.coerce.number().int().positive();
  return (max ? n.max(max) : n).default(fallback);
};

/** A TCP port (0: any free one). */
export const port = () => z.coerce.number().int().min(0).max(65535);

/** A comma-separated list, trimmed, empty items dropped. */
export const csv = z.string().transform((s) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean),
);

/**
 * A public origin such as `https://school.example`: http(s), no trailing slash (it is compared
 * byte for byte, as the issuer and the resource identifier), no path, query or fragment.
 */
export const origin = (what: string) =>
  z
    .string()
    .refine(
      (u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol),
      'must be an absolute http(s) URL, e.g. https://school.example',
    )
    .refine((u) => !u.endsWith('/'), `must have no trailing slash (${what})`)
    .refine((u) => {
      if (!URL.canParse(u)) return true; // said above
      const url = new URL(u);
      return !url.search && !url.hash && (url.pathname === '/' || url.pathname === '');
    }, 'must be an origin: no path, query or fragment');

/** A `redis://` or `rediss://` URL. */
export const redisUrl = (fallback: string) =>
  z
    .string()
    .refine((u) => /^rediss?:\/\/./.test(u) && URL.canParse(u), 'must be a redis:// or rediss:// URL')
    .default(fallback);

/** A `mongodb://` or `mongodb+srv://` URI. */
export const mongodbUri = (fallback: string) =>
  z
    .string()
    .regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// URI')
    .default(fallback);

const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** A byte size such as `100kb`, `25mb` or `4096`, as a number of bytes. */
export const byteSize = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((s, ctx) => {
      const m = /^\s*(\d+)\s*(b|kb|mb|gb)?\s*$/i.exec(s);
      if (!m || Number(m[1]) <= 0) {
        ctx.addIssue({ code: 'custom', message: 'must be a size such as 100kb, 25mb or 4096' });
        return z.NEVER;
      }
      return Number(m[1]) * UNITS[(m[2] ?? 'b').toLowerCase()]!;
    });

/** A comma-separated list of `host:port` addresses, e.g. `10.0.0.1:6379,10.0.0.2:6379`. */
export const hostPortList = csv.pipe(
  z
    .array(
      z
        .string()
        .regex(/^[^\s:]+:\d{1,5}$/, 'each address must be host:port')
        .transform((a) => ({
          host: a.slice(0, a.lastIndexOf(':')),
          port: Number(a.slice(a.lastIndexOf(':') + 1)),
        })),
    )
    .min(1, 'needs at least one host:port'),
);

/**
 * Where Redis is, the same four variables in both services (redis-client.ts reads them):
 * `REDIS_URL` alone is one node; `REDIS_CLUSTER_NODES` (some seed nodes of a Redis Cluster) or
 * `REDIS_SENTINELS` + `REDIS_SENTINEL_NAME` (a primary with replicas watched by Sentinel) name a
 * distributed Redis, and REDIS_URL then only lends its user, password and `rediss:` (TLS). Each
 * service says what they mean to it (`described`).
 */
export const redisFields = (
  fallbackUrl: string,
  described: Record<'REDIS_URL' | 'REDIS_CLUSTER_NODES' | 'REDIS_SENTINELS' | 'REDIS_SENTINEL_NAME', string>,
) => ({
  REDIS_URL: documented(redisUrl(fallbackUrl), described.REDIS_URL),
  REDIS_CLUSTER_NODES: documented(hostPortList.optional(), described.REDIS_CLUSTER_NODES),
  REDIS_SENTINELS: documented(hostPortList.optional(), described.REDIS_SENTINELS),
  REDIS_SENTINEL_NAME: documented(z.string().min(1).optional(), described.REDIS_SENTINEL_NAME),
});

/** The problems of a combination of {@link redisFields}, for a schema's `superRefine`. */
export function redisTopologyProblems(env: {
  REDIS_CLUSTER_NODES?: unknown;
  REDIS_SENTINELS?: unknown;
  REDIS_SENTINEL_NAME?: unknown;
}): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = [];
  if (env.REDIS_CLUSTER_NODES && env.REDIS_SENTINELS)
    problems.push({
      path: 'REDIS_SENTINELS',
      message: 'give REDIS_CLUSTER_NODES or REDIS_SENTINELS, not both',
    });
  if (env.REDIS_SENTINELS && !env.REDIS_SENTINEL_NAME)
    problems.push({ path: 'REDIS_SENTINEL_NAME', message: 'is needed with REDIS_SENTINELS' });
  if (env.REDIS_SENTINEL_NAME && !env.REDIS_SENTINELS)
    problems.push({ path: 'REDIS_SENTINELS', message: 'is needed with REDIS_SENTINEL_NAME' });
  return problems;
}
