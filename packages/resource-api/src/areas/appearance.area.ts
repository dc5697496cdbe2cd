/**
 * Appearance: the look of the school's site — theme, brand colours, font, logo and favicon, and
 * custom CSS. Anonymous visitors (the site itself) get everything but the custom CSS source.
 */
import { z } from 'zod';
import type { Stored } from '../lib/crud.js';
import { defineSingletonArea } from '../lib/singleton.js';
import { httpUrl, instant, isoRequired, mapInput } from '../lib/wire.js';

const THEME = ['light', 'dark', 'auto'] as const;
const FONT = ['system', 'inter', 'merriweather', 'lora', 'roboto', 'source-sans'] as const;

interface Appearance {
  theme: (typeof THEME)[number];
  primaryColor: string;
  accentColor: string;
  fontFamily: (typeof FONT)[number];
  logoUrl?: string | null;
  faviconUrl?: string | null;
  customCss: string;
}

const color = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'must be a hex colour such as #1a73e8');

const publicShape = {
  theme: z.enum(THEME),
  primary_color: z.string(),
  accent_color: z.string(),
  font_family: z.enum(FONT),
  logo_url: z.string().nullable(),
  favicon_url: z.string().nullable(),
};
const publicOutput = z.strictObject(publicShape);
const output = z.strictObject({ ...publicShape, custom_css: z.string(), updated_at: instant });

const update = z.strictObject({
  theme: z.enum(THEME).optional(),
  primary_color: color.optional(),
  accent_color: color.optional(),
  font_family: z.enum(FONT).optional(),
  logo_url: httpUrl.nullable().optional(),
  favicon_url: httpUrl.nullable().optional(),
  custom_css: z.string().max(50_000).optional(),
});

const publicFields = (d: Stored<Appearance>) => ({
  theme: d.theme,
  primary_color: d.primaryColor,
  accent_color: d.accentColor,
  font_family: d.fontFamily,
  logo_url: d.logoUrl ?? null,
  favicon_url: d.faviconUrl ?? null,
});

export default defineSingletonArea<Appearance>({
  name: 'appearance',
  noun: 'appearance settings',
  schemaName: 'Appearance',
  description: 'Theme, brand colours, font, logo and custom CSS of the school site.',
  modelName: 'Appearance',
  collection: 'appearance',
  fields: {
    theme: { type: String, enum: THEME, default: 'light' },
    primaryColor: { type: String, default: '#1a73e8' },
    accentColor: { type: String, default: '#f4b400' },
    fontFamily: { type: String, enum: FONT, default: 'system' },
    logoUrl: String,
    faviconUrl: String,
    customCss: { type: String, default: '' },
  },
  defaults: {
    theme: 'light',
    primaryColor: '#1a73e8',
    accentColor: '#f4b400',
    fontFamily: 'system',
    customCss: '',
  },
  output,
  toApi: (d) => ({ ...publicFields(d), custom_css: d.customCss ?? '', updated_at: isoRequired(d.updatedAt) }),
  public: { output: publicOutput, toApi: publicFields },
  input: {
    update,
    toStore: (i) =>
      mapInput(i, {
        theme: 'theme',
        primary_color: 'primaryColor',
        accent_color: 'accentColor',
        font_family: 'fontFamily',
        logo_url: 'logoUrl',
        favicon_url: 'faviconUrl',
        custom_css: 'customCss',
      }),
  },
  examples: { update: { theme: 'dark', primary_color: '#8e24aa' } },
});
