/**
 * The Redis work behind one introspection (storage/introspection-count.ts, request-reads.ts): on one
 * Redis node, one script counts the request for the rate limiter and reads the token and its grant
 * (on a cluster, two scripts sent in the same tick, since the counter and the token are in different
 * hash slots: test-e2e/redis-cluster.test.ts runs introspections there); nothing is read again,
 * nothing read for one request is used by the next, and the count is the introspection limit's own
 * window (our key layout, counted by our script on whichever path the request takes, never by
 * rate-limiter-flexible), so the limit holds whichever path counted. Watched with MONITOR on a
 * private Redis, so every command seen is this server's.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { INTROSPECTOR, startTestAuthServer, type TestAuthServer } from '../../../test-support/auth-server.js';
import { privateRedis, type ServerProcess } from '../../../test-support/private-servers.js';
import { TokenSource } from '../../../test-support/tokens.js';
import { modelKey } from '../src/storage/redis-keys.js';
import { withRequestReads } from '../src/storage/request-reads.js';
import { introspect, postForm } from './oauth-http.js';

let redisServer: ServerProcess;
let auth: TestAuthServer;
let redis: Redis;
let token: string;

beforeAll(async () => {
  redisServer = await privateRedis();
  auth = await startTestAuthServer({ REDIS_URL: redisServer.url });
  redis = new Redis(redisServer.url);
  token = await new TokenSource(auth).token(['openid', 'courses:read']);
  await introspect(auth, token); // the client is now in the adapter's client cache
});
afterAll(async () => {
  redis.disconnect();
  await auth.stop();
  await redisServer.stop('SIGKILL');
});

/** The commands clients sent Redis while `action` ran (not those scripts ran), as argument lists. */
async function commandsDuring<T>(action: () => Promise<T>): Promise<{ result: T; commands: string[][] }> {
  const monitor = await redis.monitor();
  const commands: string[][] = [];
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (!source.startsWith('lua')) commands.push(args);
  });
  await new Promise((r) => setTimeout(r, 50));
  const result = await action();
  await new Promise((r) => setTimeout(r, 50));
  monitor.disconnect();
  return { result, commands };
}

const touching = (commands: string[][], fragment: string) =>
  commands.filter((args) => args.some((a) => a.includes(fragment)));

describe('an introspection reads storage once', () => {
  it.each([
    ['with token_type_hint=access_token', { token_type_hint: 'access_token' }],
    ['without a hint', {}],
  ])('%s: one command counts the request and reads the token and its grant', async (_name, hint) => {
    const { result, commands } = await commandsDuring(() =>
      postForm(`${auth.issuer}/api/oauth/introspect`, {
        token,
        ...hint,
        client_id: INTROSPECTOR.clientId,
        client_secret: INTROSPECTOR.clientSecret,
      }),
    );
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ active: true, scope: 'openid courses:read', token_type: 'Bearer' });
    const reads = touching(commands, modelKey(auth.config.REDIS_KEY_PREFIX, 'AccessToken', token));
    expect(reads).toHaveLength(1);
    expect(touching(commands, ':rl:introspection:')).toEqual(reads); // the same command
    expect(commands.filter((args) => /^eval/i.test(args[0] ?? ''))).toHaveLength(1);
    // The grant came with the token: no GET of it (nor of anything) follows.
    expect(commands.filter((args) => args[0]?.toLowerCase() === 'get')).toEqual([]);
  });

  it('does not carry a grant over to the next request: a grant deleted behind its back ends the token at once', async () => {
    const fresh = await new TokenSource(auth).token(['openid']);
    expect((await introspect(auth, fresh)).body).toMatchObject({ active: true });
    const stored = JSON.parse(
      (await redis.get(modelKey(auth.config.REDIS_KEY_PREFIX, 'AccessToken', fresh)))!,
    ) as {
      grantId: string;
    };
    // As another instance revoking the grant would leave it for a moment: the grant gone, the token not.
    await redis.del(modelKey(auth.config.REDIS_KEY_PREFIX, 'Grant', stored.grantId));
    expect((await introspect(auth, fresh)).body).toEqual({ active: false });
  });

  it('reads nothing early for a value that is not shaped like a token, and still answers inactive', async () => {
    const odd = 'not a token: spaces and "quotes"';
    const { result, commands } = await commandsDuring(() => introspect(auth, odd));
    expect(result.body).toEqual({ active: false });
    const key = modelKey(auth.config.REDIS_KEY_PREFIX, 'AccessToken', odd);
    expect(touching(commands, key)).toHaveLength(1); // oidc-provider's own lookup only
  });

  it("counts a request the shortcut leaves to oidc-provider in the same window, by the limit's own script", async () => {
    const odd = 'not a token: spaces and "quotes"';
    const { commands } = await commandsDuring(() => introspect(auth, odd));
    const counted = touching(commands, ':rl:introspection:client:');
    expect(counted.length).toBeGreaterThan(0);
    expect(counted.every((args) => /^eval/i.test(args[0] ?? ''))).toBe(true); // our fixed window's script
    expect(touching(commands, ':rl:introspect:')).toEqual([]); // rate-limiter-flexible's layout is not used
  });
});

describe('a read a step made is handed to the models it calls', () => {
  it('is taken by the model even when the model reads after an await, and only there', async () => {
    const { provider } = auth.running;
    const key = modelKey(auth.config.REDIS_KEY_PREFIX, 'AccessToken', token);
    const { result, commands } = await commandsDuring(() =>
      withRequestReads({ key, found: Promise.resolve(null) }, async () => {
        await new Promise((resolve) => setTimeout(resolve, 10));
        return provider.AccessToken.find(token);
      }),
    );
    expect(result).toBeUndefined(); // the handed read (no such token), not storage's
    expect(touching(commands, key)).toEqual([]);
    expect(await provider.AccessToken.find(token)).toMatchObject({ scope: 'openid courses:read' });
  });
});

describe("the count of that script is the introspection limit's", () => {
  it("shares one window with requests the limit's step counts, and answers 429 with Retry-After past the limit", async () => {
    const limited = await startTestAuthServer({ RATE_LIMIT_INTROSPECTION: '2' });
    try {
      const as = { client_id: INTROSPECTOR.clientId, client_secret: INTROSPECTOR.clientSecret };
      const shaped = 'A'.repeat(43); // counted by the script (no such token: inactive)
      expect((await introspect(limited, shaped, as)).body).toEqual({ active: false });
      expect((await introspect(limited, 'not shaped', as)).body).toEqual({ active: false }); // by the step
      const refused = await introspect(limited, shaped, as);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(refused.body).toEqual({ error: 'too_many_requests', error_description: expect.any(String) });
      // A different client has its own window.
      expect(
        (await introspect(limited, shaped, { client_id: 'someone-else', client_secret: 'x' })).status,
      ).toBe(401);
    } finally {
      await limited.stop();
    }
  });
});
