/**
 * The auth server's configuration as documented: the table of docs/configuration.md and
 * config/auth-server.env.example, both generated from the settings the schemas declare (config.ts,
 * and cli/seed-config.ts for `seed-admin`) by `@school/shared`'s generator. Tests hold the files to
 * these (regenerate with `scripts/docs-tables`).
 */
import { envExample, settingsTable } from '@school/shared';
import { SEED_SETTINGS } from '../cli/seed-config.js';
import { SETTINGS } from '../config.js';

/** The table's section in docs/configuration.md (`<!-- auth-env-table:start -->` … `end`). */
export const TABLE_SECTION = 'auth-env-table';

/** The auth server's variables as docs/configuration.md shows them. */
export const configTable = (): string => settingsTable(SETTINGS);

/** config/auth-server.env.example: every variable the auth server and `seed-admin` read, with its default. */
export const configExample = (): string =>
  envExample(
    'The auth server’s environment, generated from its configuration schema (scripts/docs-tables): every value is the default, an empty one has none; see docs/configuration.md.',
    [...SETTINGS, ...SEED_SETTINGS],
  );
