/**
 * docs/configuration.md lists every environment variable of the auth server with its real default,
 * exactly as `src/docs/config-table.ts` generates it (regenerate with `scripts/docs-tables`).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { CONFIG_KEYS, loadConfig } from '../src/config.js';
import { CONFIG_DEFAULTS, CONFIG_DOCS, configTable, section } from '../src/docs/config-table.js';

const doc = readFileSync(new URL('../../../docs/configuration.md', import.meta.url), 'utf8');

describe('the auth server configuration table', () => {
  it('describes every variable of the schema and no other', () => {
    expect(Object.keys(CONFIG_DOCS).sort()).toEqual([...CONFIG_KEYS].sort());
    expect(Object.keys(CONFIG_DEFAULTS).sort()).toEqual([...CONFIG_KEYS].sort());
  });

  it('gives each variable the default the schema applies', () => {
    const defaults: Record<string, unknown> = loadConfig({ NODE_ENV: 'test' });
    // NODE_ENV is set to run the check; the secrets fall back to test-only values under it.
    const skipped = new Set(['NODE_ENV', 'COOKIE_SECRETS', 'INTROSPECTION_CLIENT_SECRET']);
    for (const key of CONFIG_KEYS.filter((k) => !skipped.has(k))) {
      const written = CONFIG_DEFAULTS[key];
      const applied: Record<string, unknown> = written
        ? loadConfig({ NODE_ENV: 'test', [key]: written })
        : {};
      expect({ key, value: written ? applied[key] : undefined }).toEqual({ key, value: defaults[key] });
    }
  });

  it('is in docs/configuration.md exactly as generated', () => {
    expect(section(doc)).toBe(configTable());
  });
});
