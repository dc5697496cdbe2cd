/**
 * The generated tables of docs/areas.md and docs/configuration.md: the areas with their operations
 * and scopes (from the registry) and the environment variables (from the configuration), and the
 * example environment file. Tests check the files hold exactly these.
 */
import { ALL_SCOPES, DATA_CATEGORIES, envExample, scopesByCategory, settingsTable } from '@school/shared';
import { SETTINGS } from '../config.js';
import { scopeOf, type AreaModule } from '../lib/operation.js';

/** One row per operation. */
export function areasTable(registry: readonly AreaModule[]): string {
  const rows = registry.flatMap((area) =>
    area.operations.map(
      (op) =>
        `| \`${area.name}\` | ${op.summary} | \`${op.method.toUpperCase()} ${op.path}\` | \`${scopeOf(op)}\` | ${op.response.public ? 'public view' : '403'} |`,
    ),
  );
  return [
    '| Area | Operation | Request | Scope | Anonymous |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

/** One row per data category: its heading and the scopes under it (packages/shared/src/scopes.ts). */
export function categoriesTable(): string {
  const rows = scopesByCategory(ALL_SCOPES.map((s) => s.name)).map(
    (g) =>
      `| \`${g.category}\` | ${DATA_CATEGORIES[g.category]} | ${g.scopes.map((s) => `\`${s}\``).join(', ')} |`,
  );
  return ['| Category | Heading on the pages | Scopes |', '| --- | --- | --- |', ...rows].join('\n');
}

/** The resource API's variables as docs/configuration.md shows them (from the schema's declarations). */
export const envTable = (): string => settingsTable(SETTINGS);

/** config/resource-api.env.example: every variable with its default. */
export const envFile = (): string =>
  envExample(
    'The resource API’s environment, generated from its configuration schema (scripts/docs-tables): every value is the default, an empty one has none; see docs/configuration.md.',
    SETTINGS,
  );

export { section, withSection } from '@school/shared';
