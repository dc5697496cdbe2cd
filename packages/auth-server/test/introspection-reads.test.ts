/**
 * The Redis reads behind one introspection (provider/request-reads.ts, createAccessTokenPrefetch):
 * the token and its grant come from one script started while the rate limiter counts the request, the
 * grant is not read again, and nothing read for one request is used by the next. Watched with MONITOR
 * on a private Redis, so every command seen is this server's.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { INTROSPECTOR, startTestAuthServer, type TestAuthServer } from '../../../test-support/auth-server.js';
import { privateRedis, type ServerProcess } from '../../../test-support/processes.js';
import { TokenSource } from '../../../test-support/tokens.js';
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
  ])('%s: one command reads the token and its grant, and the answer is the full one', async (_name, hint) => {
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
    expect(touching(commands, `AccessToken:${token}`)).toHaveLength(1);
    // Started before the rate limiter's count, in the same tick: ioredis sends both in one write.
    const read = commands.findIndex((args) => args.some((a) => a.includes(`AccessToken:${token}`)));
    const count = commands.findIndex((args) => args.some((a) => a.includes(':rl:introspect:')));
    expect(count).toBeGreaterThan(read);
    // The grant came with the token: no GET of it (nor of anything) follows.
    expect(commands.filter((args) => args[0]?.toLowerCase() === 'get')).toEqual([]);
  });

  it('does not carry a grant over to the next request: a grant deleted behind its back ends the token at once', async () => {
    const fresh = await new TokenSource(auth).token(['openid']);
    expect((await introspect(auth, fresh)).body).toMatchObject({ active: true });
    const stored = JSON.parse((await redis.get(`${auth.config.REDIS_KEY_PREFIX}AccessToken:${fresh}`))!) as {
      grantId: string;
    };
    // As another instance revoking the grant would leave it for a moment: the grant gone, the token not.
    await redis.del(`${auth.config.REDIS_KEY_PREFIX}Grant:${stored.grantId}`);
    expect((await introspect(auth, fresh)).body).toEqual({ active: false });
  });

  it('reads nothing early for a value that is not shaped like a token, and still answers inactive', async () => {
    const odd = 'not a token: spaces and "quotes"';
    const { result, commands } = await commandsDuring(() => introspect(auth, odd));
    expect(result.body).toEqual({ active: false });
    expect(touching(commands, 'AccessToken:not a token')).toHaveLength(1); // oidc-provider's own lookup only
  });
});
