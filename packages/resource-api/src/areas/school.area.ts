/**
 * The school: the one school this deployment serves (docs/decisions.md) — its name, tagline, contact,
 * locale, time zone, default currency and social links. Anonymous visitors get the public profile.
 */
import { z } from 'zod';
import { custom, text } from '../lib/fields.js';
import { defineSingletonArea } from '../lib/singleton.js';
import { currency, httpUrl, timezone } from '../lib/wire.js';

const NETWORK = ['website', 'youtube', 'instagram', 'x', 'linkedin', 'facebook', 'tiktok'] as const;

type SocialLink = { network: (typeof NETWORK)[number]; url: string };

export default defineSingletonArea({
  name: 'school',
  noun: 'school profile',
  schemaName: 'School',
  description: 'The school’s profile: name, contact, locale, currency and links.',
  fields: {
    name: text().required().default('My School').input(z.string().max(200).trim().min(1)).public(),
    tagline: text().default('').input(z.string().max(200)).public(),
    description: text().default('').input(z.string().max(10_000)).public(),
    contact_email: text().nullable().input(z.email().nullable()).public(),
    support_url: text().nullable().input(httpUrl.nullable()).public(),
    timezone: text().default('UTC').input(timezone.optional().describe('IANA time zone, e.g. Europe/Berlin')),
    locale: text()
      .default('en')
      .input(z.string().regex(/^[a-z]{2}(-[A-Z]{2})?$/, 'must be a locale such as en or en-US'))
      .public(),
    currency: text()
      .default('USD')
      .input(currency.optional().describe('Default currency for new prices and for analytics'))
      .public(),
    social_links: custom({
      out: z.array(z.strictObject({ network: z.enum(NETWORK), url: z.string() })),
      store: { type: [{ _id: false, network: String, url: String }], default: [] },
      toApi: (v) => ((v as SocialLink[] | undefined) ?? []).map((s) => ({ network: s.network, url: s.url })),
    })
      .input(z.array(z.strictObject({ network: z.enum(NETWORK), url: httpUrl })).max(NETWORK.length))
      .public(),
  },
  examples: { update: { tagline: 'Bake better bread, at home' } },
});
