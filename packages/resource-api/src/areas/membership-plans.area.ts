/**
 * Membership plans: recurring offers (monthly or yearly) that give access to the community and
 * content, with an optional trial. Anonymous visitors see published plans (the pricing page).
 */
import { z } from 'zod';
import { defineCollectionArea } from '../lib/crud.js';
import { choice, integer, text, texts, requiredText } from '../lib/fields.js';
import { enumFilter } from '../lib/filters.js';
import { publishedContent } from '../lib/published-content.js';
import { cents, currency } from '../lib/wire.js';

const INTERVAL = ['month', 'year'] as const;
const content = publishedContent({ plural: 'plans', from: 'name' });

export default defineCollectionArea({
  name: 'membership_plans',
  noun: 'membership plan',
  schemaName: 'MembershipPlan',
  description: 'Recurring membership plans (monthly or yearly) with trials and features.',
  fields: {
    name: requiredText().public(),
    slug: content.slug,
    description: text().default('').input(z.string().max(5000).optional()).public(),
    price_cents: integer().required().input(cents).public(),
    currency: text().default('USD').input(currency.optional().describe('Default USD')).public(),
    interval: choice(INTERVAL)
      .default('month')
      .input(z.enum(INTERVAL).optional().describe('Default month'))
      .public(),
    trial_days: integer().default(0).input(z.number().int().min(0).max(365).optional()).public(),
    features: texts()
      .input(z.array(z.string().max(200).trim().min(1)).max(30).optional())
      .public(),
    status: content.status,
  },
  ...content.area,
  list: {
    sort: { field: 'priceCents', order: 1, kind: 'number' },
    order: 'cheapest first',
    search: { fields: ['name'], what: 'plan name (case-insensitive)' },
    filters: [content.statusFilter, enumFilter('interval', 'interval', INTERVAL, 'plans')],
  },
  examples: {
    create: {
      name: 'Studio Pass',
      price_cents: 1900,
      interval: 'month',
      trial_days: 7,
      features: ['All courses'],
    },
    update: { status: 'published' },
  },
});
