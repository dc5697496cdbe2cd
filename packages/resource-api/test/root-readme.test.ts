/**
 * The repository's README lists every area with its operations and scopes and every environment
 * variable of the resource API exactly as the registry and the configuration schema say
 * (regenerate with `node packages/resource-api/dist/docs/areas-table.js --write README.md`).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { REGISTRY } from '../src/areas/index.js';
import { areasTable, envTable, section } from '../src/docs/tables.js';

const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');

describe('the repository README', () => {
  it('lists every area with its operations and scopes, as the registry says', () => {
    expect(section(readme, 'areas-table')).toBe(areasTable(REGISTRY));
  });

  it('lists every environment variable of the resource API', () => {
    expect(section(readme, 'env-table')).toBe(envTable());
  });
});
