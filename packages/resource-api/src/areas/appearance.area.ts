/**
 * Appearance: the look of the school's site — theme, brand colours, font, logo and favicon, and
 * custom CSS. Anonymous visitors (the site itself) get everything but the custom CSS source.
 */
import { z } from 'zod';
import { choice, text } from '../lib/fields.js';
import { defineSingletonArea } from '../lib/singleton.js';
import { httpUrl } from '../lib/wire.js';

const THEME = ['light', 'dark', 'auto'] as const;
const FONT = ['system', 'inter', 'merriweather', 'lora', 'roboto', 'source-sans'] as const;

const color = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'must be a hex colour such as #1a73e8');

export default defineSingletonArea({
  name: 'appearance',
  noun: 'appearance settings',
  schemaName: 'Appearance',
  description: 'Theme, brand colours, font, logo and custom CSS of the school site.',
  fields: {
    theme: choice(THEME).default('light').input(z.enum(THEME)).public(),
    primary_color: text().default('#1a73e8').input(color).public(),
    accent_color: text().default('#f4b400').input(color).public(),
    font_family: choice(FONT).default('system').input(z.enum(FONT)).public(),
    logo_url: text().nullable().input(httpUrl.nullable()).public(),
    favicon_url: text().nullable().input(httpUrl.nullable()).public(),
    custom_css: text().default('').input(z.string().max(50_000)),
  },
  timestamps: 'updated',
  examples: { update: { theme: 'dark', primary_color: '#8e24aa' } },
});
