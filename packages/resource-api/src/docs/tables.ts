/**
 * The generated tables of docs/areas.md and docs/configuration.md: the areas with their operations
 * and scopes (from the registry) and the environment variables (from the configuration). A test
 * checks the documents hold exactly these.
 */
import { CONFIG_DEFAULTS, CONFIG_DOCS, CONFIG_KEYS } from '../config.js';
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

/** One row per environment variable (an empty default, i.e. unset, reads `none`). */
export function envTable(): string {
  const shown = (value: string | undefined) => (value ? `\`${value}\`` : 'none');
  const rows = CONFIG_KEYS.map(
    (key) => `| \`${key}\` | ${shown(CONFIG_DEFAULTS[key])} | ${CONFIG_DOCS[key]} |`,
  );
  return ['| Variable | Default | Meaning |', '| --- | --- | --- |', ...rows].join('\n');
}

/** Replaces the text between `<!-- name:start -->` and `<!-- name:end -->`. */
export function withSection(markdown: string, name: string, body: string): string {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const from = markdown.indexOf(start);
  const to = markdown.indexOf(end);
  if (from < 0 || to < from) throw new Error(`no ${name} section`);
  return `${markdown.slice(0, from + start.length)}\n${body}\n${markdown.slice(to)}`;
}

/** The text between the markers, or undefined. */
export function section(markdown: string, name: string): string | undefined {
  const m = new RegExp(`<!-- ${name}:start -->\\n([\\s\\S]*?)\\n<!-- ${name}:end -->`).exec(markdown);
  return m?.[1];
}
