import { describe, expect, it } from '@jest/globals';
import { PUBLISHED_SECRETS } from '@school/shared';
import { CONFIG_KEYS, ConfigError, SETTINGS, loadConfig } from './config.js';

describe('loadConfig', () => {
  it('works with nothing but NODE_ENV=test', () => {
    const config = loadConfig({ NODE_ENV: 'test' });
    expect(config).toMatchObject({
      BASE_URL: 'http://127.0.0.1:8080',
      API_PORT: 8081,
      AUTH_INTERNAL_URL: 'http://127.0.0.1:8082',
      INTROSPECTION_CACHE_TTL: 60,
      NEGATIVE_CACHE_TTL: 5,
      BODY_LIMIT: 100 * 1024,
      UPLOAD_LIMIT: 25 * 1024 * 1024,
      REDIS_KEY_PREFIX: 'oidc:',
    });
  });

  it('lists every problem at once', () => {
    let error: ConfigError | undefined;
    try {
      loadConfig({
        NODE_ENV: 'test',
        BASE_URL: 'http://school.example/',
        API_PORT: 'eighty',
        AUTH_INTERNAL_URL: 'ftp://auth',
        INTROSPECTION_CLIENT_SECRET: 'short',
        BODY_LIMIT: 'lots',
        MONGODB_URI: 'postgres://db',
      });
    } catch (err) {
      error = err as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.problems.map((p) => p.split(':')[0]).sort()).toEqual([
      'API_PORT',
      'AUTH_INTERNAL_URL',
      'BASE_URL',
      'BODY_LIMIT',
      'INTROSPECTION_CLIENT_SECRET',
      'MONGODB_URI',
    ]);
  });

  it.each(['development', 'production', undefined])(
    'requires an introspection secret under NODE_ENV=%s, naming it and how to make one',
    (NODE_ENV) => {
      expect(() => loadConfig({ NODE_ENV })).toThrow(
        /INTROSPECTION_CLIENT_SECRET: is required unless NODE_ENV=test; generate one with `openssl rand -hex 32`/,
      );
    },
  );

  it.each(['development', 'production'])(
    'refuses every introspection secret published in the repository under NODE_ENV=%s',
    (NODE_ENV) => {
      for (const published of PUBLISHED_SECRETS)
        expect(() => loadConfig({ NODE_ENV, INTROSPECTION_CLIENT_SECRET: published })).toThrow(
          /INTROSPECTION_CLIENT_SECRET: is a value published in the source code/,
        );
      expect(loadConfig({ NODE_ENV, INTROSPECTION_CLIENT_SECRET: 's'.repeat(64) }).NODE_ENV).toBe(NODE_ENV);
    },
  );

  it('names BASE_URL and every other problem when BASE_URL is not a URL at all', () => {
    let error: ConfigError | undefined;
    try {
      loadConfig({ NODE_ENV: 'test', BASE_URL: 'notaurl', AUTH_INTERNAL_URL: '::', REDIS_URL: 'x' });
    } catch (err) {
      error = err as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.problems).toEqual([
      expect.stringMatching(/^BASE_URL: must be an absolute http\(s\) URL/),
      expect.stringMatching(/^AUTH_INTERNAL_URL: must be an absolute http\(s\) URL/),
      expect.stringMatching(/^REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL/),
    ]);
  });

  it('keeps the negative cache shorter than the positive bound', () => {
    expect(() => loadConfig({ NEGATIVE_CACHE_TTL: '30', INTROSPECTION_CACHE_TTL: '10' })).toThrow(
      /NEGATIVE_CACHE_TTL/,
    );
  });

  it('documents every variable with the default it really has', () => {
    expect(SETTINGS.map((s) => s.name)).toEqual([...CONFIG_KEYS]);
    const defaults: Record<string, unknown> = loadConfig({ NODE_ENV: 'test' });
    const load = (env: Record<string, string>): Record<string, unknown> => loadConfig(env);
    for (const { name, default: written } of SETTINGS) {
      if (name === 'INTROSPECTION_CLIENT_SECRET' || name === 'NODE_ENV' || !written) continue;
      // The default as documented, given as the environment, is what the schema applies unset.
      expect({ name, value: load({ NODE_ENV: 'test', [name]: written })[name] }).toEqual({
        name,
        value: defaults[name],
      });
    }
    expect(SETTINGS.find((s) => s.name === 'BODY_LIMIT')).toMatchObject({ default: '100kb' });
  });
});
