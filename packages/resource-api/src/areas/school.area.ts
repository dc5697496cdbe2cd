/**
 * The school: the one school this deployment serves (DESIGN.md §5) — its name, tagline, contact,
 * locale, time zone, default currency and social links. Anonymous visitors get the public profile.
 */
import { z } from 'zod';
import type { Stored } from '../lib/crud.js';
import { defineSingletonArea } from '../lib/singleton.js';
import { currency, httpUrl, instant, isoRequired, mapInput, timezone } from '../lib/wire.js';

const NETWORK = ['website', 'youtube', 'instagram', 'x', 'linkedin', 'facebook', 'tiktok'] as const;

interface School {
  name: string;
  tagline: string;
  description: string;
  contactEmail?: string | null;
  supportUrl?: string | null;
  timezone: string;
  locale: string;
  currency: string;
  socialLinks: { network: (typeof NETWORK)[number]; url: string }[];
}

const social = z.strictObject({ network: z.enum(NETWORK), url: z.string() });

const publicShape = {
  name: z.string(),
  tagline: z.string(),
  description: z.string(),
  contact_email: z.string().nullable(),
  support_url: z.string().nullable(),
  locale: z.string(),
  currency: z.string(),
  social_links: z.array(social),
};
const publicOutput = z.strictObject(publicShape);
const output = z.strictObject({
  ...publicShape,
  timezone: z.string(),
  created_at: instant,
  updated_at: instant,
});

const update = z.strictObject({
  name: z.string().max(200).trim().min(1).optional(),
  tagline: z.string().max(200).optional(),
  description: z.string().max(10_000).optional(),
  contact_email: z.email().nullable().optional(),
  support_url: httpUrl.nullable().optional(),
  timezone: timezone.optional().describe('IANA time zone, e.g. Europe/Berlin'),
  locale: z
    .string()
    .regex(/^[a-z]{2}(-[A-Z]{2})?$/, 'must be a locale such as en or en-US')
    .optional(),
  currency: currency.optional().describe('Default currency for new prices and for analytics'),
  social_links: z
    .array(z.strictObject({ network: z.enum(NETWORK), url: httpUrl }))
    .max(NETWORK.length)
    .optional(),
});

const publicFields = (d: Stored<School>) => ({
  name: d.name,
  tagline: d.tagline ?? '',
  description: d.description ?? '',
  contact_email: d.contactEmail ?? null,
  support_url: d.supportUrl ?? null,
  locale: d.locale,
  currency: d.currency,
  social_links: (d.socialLinks ?? []).map((s) => ({ network: s.network, url: s.url })),
});

export default defineSingletonArea<School>({
  name: 'school',
  noun: 'school profile',
  schemaName: 'School',
  description: 'The school’s profile: name, contact, locale, currency and links.',
  modelName: 'School',
  collection: 'school',
  fields: {
    name: { type: String, required: true },
    tagline: { type: String, default: '' },
    description: { type: String, default: '' },
    contactEmail: String,
    supportUrl: String,
    timezone: { type: String, default: 'UTC' },
    locale: { type: String, default: 'en' },
    currency: { type: String, default: 'USD' },
    socialLinks: { type: [{ _id: false, network: String, url: String }], default: [] },
  },
  defaults: {
    name: 'My School',
    tagline: '',
    description: '',
    timezone: 'UTC',
    locale: 'en',
    currency: 'USD',
    socialLinks: [],
  },
  output,
  toApi: (d) => ({
    ...publicFields(d),
    timezone: d.timezone,
    created_at: isoRequired(d.createdAt),
    updated_at: isoRequired(d.updatedAt),
  }),
  public: { output: publicOutput, toApi: publicFields },
  input: {
    update,
    toStore: (i) =>
      mapInput(i, {
        name: 'name',
        tagline: 'tagline',
        description: 'description',
        contact_email: 'contactEmail',
        support_url: 'supportUrl',
        timezone: 'timezone',
        locale: 'locale',
        currency: 'currency',
        social_links: 'socialLinks',
      }),
  },
  examples: { update: { tagline: 'Bake better bread, at home' } },
});
