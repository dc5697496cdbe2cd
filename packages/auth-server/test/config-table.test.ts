/**
 * docs/configuration.md lists every environment variable of the auth server, and
 * config/auth-server.env.example every variable of the server and of `seed-admin`, exactly as the
 * schemas declare them (`src/docs/config-docs.ts`; regenerate with `scripts/docs-tables`); each
 * documented default is the one the schema applies.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { section } from '@school/shared';
import { SEED_SETTINGS } from '../src/cli/seed-config.js';
import { CONFIG_KEYS, SETTINGS, loadConfig } from '../src/config.js';
import { configExample, configTable, TABLE_SECTION } from '../src/docs/config-docs.js';

const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');

describe('the auth server configuration table', () => {
  it('describes every variable of the schema, in its order', () => {
    expect(SETTINGS.map((s) => s.name)).toEqual([...CONFIG_KEYS]);
    for (const s of SETTINGS)
      expect({ name: s.name, described: s.description.length > 10 }).toEqual({
        name: s.name,
        described: true,
      });
  });

  it('gives each variable the default the schema applies', () => {
    const defaults: Record<string, unknown> = loadConfig({ NODE_ENV: 'test' });
    // NODE_ENV is set to run the check; the secrets fall back to test-only values under it.
    const skipped = new Set(['NODE_ENV', 'COOKIE_SECRETS', 'INTROSPECTION_CLIENT_SECRET']);
    for (const { name, default: written } of SETTINGS.filter((s) => !skipped.has(s.name))) {
      const applied: Record<string, unknown> = written
        ? loadConfig({ NODE_ENV: 'test', [name]: written })
        : {};
      expect({ name, value: written ? applied[name] : undefined }).toEqual({ name, value: defaults[name] });
    }
  });

  it('is in docs/configuration.md exactly as generated', () => {
    expect(section(read('docs/configuration.md'), TABLE_SECTION)).toBe(configTable());
  });

  it('is config/auth-server.env.example, every variable of the server and of seed-admin, as generated', () => {
    const example = read('config/auth-server.env.example');
    expect(example).toBe(configExample());
    for (const { name } of [...SETTINGS, ...SEED_SETTINGS])
      expect(example).toMatch(new RegExp(`^${name}=`, 'm'));
  });
});
