/**
 * The settings' documentation, read from the configuration schemas themselves: each field carries
 * its meaning as zod metadata (`description`) and, only where the environment writes its default
 * otherwise than the value the schema parses to (a size such as `100kb`), `envDefault`. From that one
 * declaration come both services' tables in docs/configuration.md and the `config/*.env.example`
 * files (`scripts/docs-tables`); tests hold the files to what this generates.
 */
import type { z } from 'zod';

/** What a field declares of itself, besides its type and default. */
export interface SettingMeta {
  /** What the variable means, one Markdown table cell. */
  description: string;
  /** The default as an environment writes it, when the parsed default does not show it. */
  envDefault?: string;
}

/** One environment variable as the tables and example files show it. */
export interface Setting {
  name: string;
  /** Its default as written in an environment; '' when it has none. */
  default: string;
  description: string;
}

/** `field` with its documentation attached (the last call of a field's chain, so it is the field's own). */
export function documented<T extends z.ZodType>(field: T, description: string, envDefault?: string): T {
  return field.meta(envDefault === undefined ? { description } : { description, envDefault });
}

/** The default a field applies when its variable is unset, as an environment would write it. */
function parsedDefault(field: z.ZodType): string {
  const parsed = field.safeParse(undefined);
  if (!parsed.success || parsed.data === undefined) return '';
  const value: unknown = parsed.data;
  return Array.isArray(value) ? value.join(',') : String(value);
}

/** Every variable of a schema's shape, in its order; throws for a field without a description. */
export function settingsOf(shape: Record<string, z.ZodType>): Setting[] {
  return Object.entries(shape).map(([name, field]) => {
    const meta = field.meta() as Partial<SettingMeta> | undefined;
    if (!meta?.description) throw new Error(`${name} has no description: declare it with documented()`);
    return { name, default: meta.envDefault ?? parsedDefault(field), description: meta.description };
  });
}

/** The Markdown table of `settings` (an empty default reads `none`). */
export function settingsTable(settings: Setting[]): string {
  const shown = (value: string) => (value ? `\`${value}\`` : 'none');
  return [
    '| Variable | Default | Meaning |',
    '| --- | --- | --- |',
    ...settings.map((s) => `| \`${s.name}\` | ${shown(s.default)} | ${s.description} |`),
  ].join('\n');
}

/** `text` as `# ` comment lines of at most `width` characters. */
function commentLines(text: string, width = 100): string[] {
  const lines: string[] = [];
  let line = '#';
  for (const word of text.replace(/`/g, '').split(/\s+/)) {
    if (line.length + 1 + word.length > width && line !== '#') {
      lines.push(line);
      line = '#';
    }
    line += ` ${word}`;
  }
  return [...lines, line];
}

/** An environment file listing every setting: its meaning as a comment, then `NAME=default`. */
export function envExample(header: string, settings: Setting[]): string {
  const seen = new Set<string>();
  const blocks = settings
    .filter((s) => !seen.has(s.name) && seen.add(s.name))
    .map((s) => [...commentLines(s.description), `${s.name}=${s.default}`].join('\n'));
  return `${commentLines(header).join('\n')}\n\n${blocks.join('\n\n')}\n`;
}

/** `markdown` with the text between `<!-- name:start -->` and `<!-- name:end -->` replaced by `body`. */
export function withSection(markdown: string, name: string, body: string): string {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const from = markdown.indexOf(start);
  const to = markdown.indexOf(end);
  if (from < 0 || to < from) throw new Error(`no ${name} section`);
  return `${markdown.slice(0, from + start.length)}\n${body}\n${markdown.slice(to)}`;
}

/** The text between the section's markers, or undefined. */
export function section(markdown: string, name: string): string | undefined {
  return new RegExp(`<!-- ${name}:start -->\\n([\\s\\S]*?)\\n<!-- ${name}:end -->`).exec(markdown)?.[1];
}
