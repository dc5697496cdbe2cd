import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from './config.js';

describe('loadConfig', () => {
  it('starts on working local defaults with nothing set', () => {
    const config = loadConfig({});
    expect(config.BASE_URL).toBe('http://127.0.0.1:8080');
    expect(config.port).toBe(8080);
    expect(config.REDIS_URL).toMatch(/^redis:\/\/127\.0\.0\.1:/);
    expect(config.COOKIE_SECRETS).toHaveLength(1);
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

  it('refuses the development secrets in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', BASE_URL: 'https://school.example' })).toThrow(
      /COOKIE_SECRETS: must be set in production[\s\S]*INTROSPECTION_CLIENT_SECRET: must be set in production/,
    );
  });

  it('takes the port from BASE_URL unless AUTH_PORT is given, and splits cookie secrets', () => {
    const secret = 'x'.repeat(32);
    expect(loadConfig({ BASE_URL: 'https://school.example' }).port).toBe(443);
    const config = loadConfig({
      BASE_URL: 'https://school.example',
      AUTH_PORT: '8082',
      COOKIE_SECRETS: `${secret}, ${secret}y`,
    });
    expect(config.port).toBe(8082);
    expect(config.COOKIE_SECRETS).toEqual([secret, `${secret}y`]);
  });
});
