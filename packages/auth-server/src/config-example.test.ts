/**
 * config/auth-server.env.example shows the defaults: each value in it is what the server (or
 * `school-auth seed-admin`) uses when the variable is unset, and an empty value is a variable without
 * a default, so the file cannot drift from the schemas or carry a value, such as a password, that no
 * install should keep.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { loadSeedConfig } from './cli/seed-config.js';
import { loadConfig } from './config.js';

const EXAMPLE = resolve(import.meta.dirname, '../../../config/auth-server.env.example');

/** The example's `NAME=value` lines. */
function exampleValues(): Array<[string, string]> {
  return readFileSync(EXAMPLE, 'utf8')
    .split('\n')
    .filter((line) => /^[A-Z][A-Z0-9_]*=/.test(line))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]);
}

/** The required secrets, which have no default outside tests. */
const REQUIRED = { COOKIE_SECRETS: 'c'.repeat(64), INTROSPECTION_CLIENT_SECRET: 'i'.repeat(64) };

/** A parsed setting: the schemas give scalars and lists of strings. */
type Setting = string | number | boolean | string[] | undefined;

/** What the schemas give each variable when only the required secrets are set (as the example reads). */
function defaults(): Record<string, Setting> {
  const server = loadConfig({ NODE_ENV: 'development', ...REQUIRED }) as unknown as Record<string, Setting>;
  const seed = loadSeedConfig({ NODE_ENV: 'development' }) as unknown as Record<string, Setting>;
  return { ...server, ...seed, COOKIE_SECRETS: undefined, INTROSPECTION_CLIENT_SECRET: undefined };
}

const shown = (value: Setting) =>
  Array.isArray(value) ? value.join(',') : value === undefined ? '' : String(value);

describe('config/auth-server.env.example', () => {
  it('shows every variable with its default, and no value where there is none', () => {
    const d = defaults();
    const names = exampleValues().map(([name]) => name);
    const example = Object.fromEntries(exampleValues());
    expect(example).toEqual(Object.fromEntries(names.map((name) => [name, shown(d[name])])));
  });

  it('reads, as an environment, as the defaults', () => {
    const env = Object.fromEntries(exampleValues());
    const server = loadConfig({ ...env, ...REQUIRED });
    expect(server).toEqual(loadConfig({ NODE_ENV: 'development', ...REQUIRED }));
    expect(loadSeedConfig(env)).toEqual(loadSeedConfig({ NODE_ENV: 'development' }));
  });
});
