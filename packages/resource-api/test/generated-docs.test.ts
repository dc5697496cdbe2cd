/**
 * docs/areas.md lists every area with its operations and scopes, and docs/configuration.md every
 * environment variable of the resource API (and config/resource-api.env.example each with its default),
 * exactly as the registry and the configuration schema say (regenerate with `scripts/docs-tables`).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { REGISTRY } from '../src/areas/index.js';
import { SETTINGS } from '../src/config.js';
import { areasTable, categoriesTable, envFile, envTable, section } from '../src/docs/tables.js';

const doc = (name: string) => readFileSync(new URL(`../../../docs/${name}`, import.meta.url), 'utf8');

describe('the generated documentation', () => {
  it('lists every area with its operations and scopes, as the registry says', () => {
    expect(section(doc('areas.md'), 'areas-table')).toBe(areasTable(REGISTRY));
  });

  it('lists every scope under its data category, as the scope table says', () => {
    const table = section(doc('areas.md'), 'categories-table');
    expect(table).toBe(categoriesTable());
    // Every one of the 38 scopes is under exactly one heading.
    expect(table!.match(/`[a-z_]+(:(read|write))?`/g)!.length - 5).toBe(38);
  });

  it('lists every environment variable of the resource API', () => {
    expect(section(doc('configuration.md'), 'env-table')).toBe(envTable());
  });

  it('lists every environment variable with its default in config/resource-api.env.example', () => {
    const example = readFileSync(
      new URL('../../../config/resource-api.env.example', import.meta.url),
      'utf8',
    );
    expect(example).toBe(envFile());
    for (const { name, default: value } of SETTINGS) expect(example).toContain(`\n${name}=${value}\n`);
  });
});
