import { describe, expect, it } from '@jest/globals';
import { CONFIG_DEFAULTS, CONFIG_DOCS, CONFIG_KEYS, ConfigError, loadConfig } from './config.js';

describe('loadConfig', () => {
  it('works with no environment at all', () => {
    const config = loadConfig({});
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

  it('requires a real introspection secret in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(
      /INTROSPECTION_CLIENT_SECRET: must be set in production/,
    );
  });

  it('keeps the negative cache shorter than the positive bound', () => {
    expect(() => loadConfig({ NEGATIVE_CACHE_TTL: '30', INTROSPECTION_CACHE_TTL: '10' })).toThrow(
      /NEGATIVE_CACHE_TTL/,
    );
  });

  it('documents every variable with its real default', () => {
    expect(Object.keys(CONFIG_DOCS).sort()).toEqual([...CONFIG_KEYS].sort());
    expect(Object.keys(CONFIG_DEFAULTS).sort()).toEqual([...CONFIG_KEYS].sort());
    const defaults = loadConfig({});
    for (const key of CONFIG_KEYS) {
      if (key === 'INTROSPECTION_CLIENT_SECRET') continue;
      expect(loadConfig({ [key]: CONFIG_DEFAULTS[key] })[key]).toEqual(defaults[key]);
    }
  });
});
