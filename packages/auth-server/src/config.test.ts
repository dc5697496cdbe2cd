import { describe, expect, it } from '@jest/globals';
import { PUBLISHED_SECRETS } from '@school/shared';
import { ConfigError, loadConfig } from './config.js';

describe('loadConfig', () => {
  it('starts on working local defaults with nothing but NODE_ENV=test set', () => {
    const config = loadConfig({ NODE_ENV: 'test' });
    expect(config.BASE_URL).toBe('http://127.0.0.1:8080');
    expect(config.port).toBe(8080);
    expect(config.REDIS_URL).toMatch(/^redis:\/\/127\.0\.0\.1:/);
    expect(config.COOKIE_SECRETS).toHaveLength(1);
  });

  it('fetches metadata documents from loopback or with an extra CA only in the test suites', () => {
    const secrets = { COOKIE_SECRETS: 'x'.repeat(40), INTROSPECTION_CLIENT_SECRET: 'y'.repeat(40) };
    expect(loadConfig({ NODE_ENV: 'production', ...secrets }).CIMD_ALLOW_LOOPBACK).toBe(false);
    expect(() => loadConfig({ NODE_ENV: 'production', ...secrets, CIMD_ALLOW_LOOPBACK: 'true' })).toThrow(
      /CIMD_ALLOW_LOOPBACK: is for the test suites only/,
    );
    expect(() =>
      loadConfig({ NODE_ENV: 'development', ...secrets, CIMD_EXTRA_CA_FILE: '/tmp/ca.pem' }),
    ).toThrow(/CIMD_EXTRA_CA_FILE: is for the test suites only/);
    expect(loadConfig({ NODE_ENV: 'test', CIMD_ALLOW_LOOPBACK: 'true' }).CIMD_ALLOW_LOOPBACK).toBe(true);
    expect(() =>
      loadConfig({ NODE_ENV: 'test', CIMD_CACHE_MIN_SECONDS: '600', CIMD_CACHE_MAX_SECONDS: '60' }),
    ).toThrow(/CIMD_CACHE_MIN_SECONDS: must not exceed CIMD_CACHE_MAX_SECONDS/);
  });

  it('reads the school’s time zone and term end, and refuses either when it is not one', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).SCHOOL_TIMEZONE).toBe('UTC');
    expect(loadConfig({ NODE_ENV: 'test' }).SCHOOL_TERM_ENDS).toBeUndefined();
    const set = loadConfig({
      NODE_ENV: 'test',
      SCHOOL_TIMEZONE: 'Europe/Berlin',
      SCHOOL_TERM_ENDS: '2027-07-16',
    });
    expect([set.SCHOOL_TIMEZONE, set.SCHOOL_TERM_ENDS]).toEqual(['Europe/Berlin', '2027-07-16']);
    expect(() => loadConfig({ NODE_ENV: 'test', SCHOOL_TIMEZONE: 'Mars/Olympus' })).toThrow(
      /SCHOOL_TIMEZONE: must be an IANA time zone/,
    );
    expect(() => loadConfig({ NODE_ENV: 'test', SCHOOL_TERM_ENDS: '16.07.2027' })).toThrow(
      /SCHOOL_TERM_ENDS: must be a date, YYYY-MM-DD/,
    );
    expect(() => loadConfig({ NODE_ENV: 'test', SCHOOL_TERM_ENDS: '2027-02-30' })).toThrow(
      /SCHOOL_TERM_ENDS: must be a real date/,
    );
  });

  it('names every problem at once', () => {
    let error: unknown;
    try {
      loadConfig({
        BASE_URL: 'http://x.example/',
        REDIS_URL: 'nope',
        ACCESS_TOKEN_TTL: '-5',
        COOKIE_SECRETS: 'short',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toMatch(/BASE_URL: must have no trailing slash/);
    expect(problems).toMatch(/REDIS_URL/);
    expect(problems).toMatch(/ACCESS_TOKEN_TTL/);
    expect(problems).toMatch(/COOKIE_SECRETS/);
  });

  it('bounds the account-wide login delay to 2 s and refuses the retired account lockout setting', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).LOGIN_ACCOUNT_DELAY_MS).toBe(1000);
    expect(() => loadConfig({ NODE_ENV: 'test', LOGIN_ACCOUNT_DELAY_MS: '60000' })).toThrow(
      /LOGIN_ACCOUNT_DELAY_MS/,
    );
    expect(() => loadConfig({ NODE_ENV: 'test', LOGIN_MAX_FAILURES_PER_ACCOUNT: '10' })).toThrow(
      /LOGIN_MAX_FAILURES_PER_ACCOUNT: no longer exists[\s\S]*LOGIN_MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS/,
    );
    expect('LOGIN_MAX_FAILURES_PER_ACCOUNT' in loadConfig({ NODE_ENV: 'test' })).toBe(false);
  });

  it.each(['development', 'production', undefined])(
    'requires both secrets under NODE_ENV=%s, naming each and how to make one',
    (NODE_ENV) => {
      expect(() => loadConfig({ NODE_ENV, BASE_URL: 'https://school.example' })).toThrow(
        /COOKIE_SECRETS: is required unless NODE_ENV=test; generate one with `openssl rand -hex 32`[\s\S]*INTROSPECTION_CLIENT_SECRET: is required/,
      );
    },
  );

  it.each(['development', 'production'])(
    'refuses the secrets published in the repository under NODE_ENV=%s',
    (NODE_ENV) => {
      for (const published of PUBLISHED_SECRETS) {
        expect(() =>
          loadConfig({
            NODE_ENV,
            COOKIE_SECRETS: `${'k'.repeat(40)},${published}`,
            INTROSPECTION_CLIENT_SECRET: published,
          }),
        ).toThrow(
          /COOKIE_SECRETS: is a value published in the source code[\s\S]*INTROSPECTION_CLIENT_SECRET: is a value published/,
        );
      }
    },
  );

  it('starts outside test with secrets of its own', () => {
    const config = loadConfig({
      NODE_ENV: 'production',
      COOKIE_SECRETS: 'c'.repeat(64),
      INTROSPECTION_CLIENT_SECRET: 'i'.repeat(64),
    });
    expect(config.COOKIE_SECRETS).toEqual(['c'.repeat(64)]);
  });

  it('names BASE_URL and every other problem when BASE_URL is not a URL at all', () => {
    let error: unknown;
    try {
      loadConfig({ NODE_ENV: 'test', BASE_URL: 'notaurl', REDIS_URL: 'nope', LOG_LEVEL: 'loud' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toEqual([
      expect.stringMatching(/^BASE_URL: must be an absolute http\(s\) URL/),
      expect.stringMatching(/^REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL/),
      expect.stringMatching(/^LOG_LEVEL: /),
    ]);
  });

  it('takes the port from BASE_URL unless AUTH_PORT is given, and splits cookie secrets', () => {
    const secret = 'x'.repeat(32);
    expect(loadConfig({ NODE_ENV: 'test', BASE_URL: 'https://school.example' }).port).toBe(443);
    const config = loadConfig({
      NODE_ENV: 'test',
      BASE_URL: 'https://school.example',
      AUTH_PORT: '8082',
      COOKIE_SECRETS: `${secret}, ${secret}y`,
    });
    expect(config.port).toBe(8082);
    expect(config.COOKIE_SECRETS).toEqual([secret, `${secret}y`]);
  });

  it('reads a Redis Cluster or a Sentinel-watched primary instead of one node, and refuses a mix', () => {
    const cluster = loadConfig({ NODE_ENV: 'test', REDIS_CLUSTER_NODES: '10.0.0.1:6379, redis-b:7000' });
    expect(cluster.REDIS_CLUSTER_NODES).toEqual([
      { host: '10.0.0.1', port: 6379 },
      { host: 'redis-b', port: 7000 },
    ]);
    const sentinel = loadConfig({
      NODE_ENV: 'test',
      REDIS_SENTINELS: 's1:26379',
      REDIS_SENTINEL_NAME: 'main',
    });
    expect(sentinel.REDIS_SENTINELS).toEqual([{ host: 's1', port: 26379 }]);
    expect(() => loadConfig({ NODE_ENV: 'test', REDIS_CLUSTER_NODES: 'nohost' })).toThrow(
      /REDIS_CLUSTER_NODES.*host:port/,
    );
    expect(() => loadConfig({ NODE_ENV: 'test', REDIS_SENTINELS: 's1:26379' })).toThrow(
      /REDIS_SENTINEL_NAME: is needed with REDIS_SENTINELS/,
    );
    expect(() =>
      loadConfig({
        NODE_ENV: 'test',
        REDIS_CLUSTER_NODES: 'a:1',
        REDIS_SENTINELS: 'b:2',
        REDIS_SENTINEL_NAME: 'm',
      }),
    ).toThrow(/not both/);
  });
});
