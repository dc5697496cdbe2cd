/**
 * The "published content" fragment shared by pages, posts, courses, membership plans and digital
 * products: a unique URL slug (derived from the title or name when absent), a draft → published
 * status (default draft), an anonymous view of published items only, a `status` list filter, and
 * optionally `published_at`, stamped each time the item is put live (it stays if it is archived).
 *
 * An area places the fields where its wire shows them and spreads `area` into its declaration.
 */
import { z } from 'zod';
import { choice, instant, text } from './fields.js';
import { enumFilter } from './filters.js';
import { slug as slugSchema, slugify } from './wire.js';

/** How one area publishes. */
export interface PublishedContentOptions<S extends readonly [string, ...string[]]> {
  /** Its statuses; `draft` and `published` among them. Default: {@link CONTENT_STATUSES}. */
  statuses?: S;
  /** Plural for texts, e.g. `plans` (→ `published plans only`). */
  plural: string;
  /** The field the slug is derived from. */
  from: 'title' | 'name';
  /** The slug's description, when not `Derived from the <from> when absent`. */
  slugNote?: string;
}

/** The statuses of most published content: a draft, put live, and archived (taken down, kept). */
export const CONTENT_STATUSES = ['draft', 'published', 'archived'] as const;

/** The fields and declaration parts of published content. */
export function publishedContent<const S extends readonly [string, ...string[]] = typeof CONTENT_STATUSES>(
  o: PublishedContentOptions<S>,
) {
  const statuses = (o.statuses ?? CONTENT_STATUSES) as S;
  const slug = text()
    .required()
    .with({ unique: true })
    .input(slugSchema.optional().describe(o.slugNote ?? `Derived from the ${o.from} when absent`))
    .public();
  const status = choice(statuses)
    .default('draft')
    .input(z.enum(statuses).optional().describe('Default draft'));
  return {
    slug,
    status,
    /** When the item was last put live. */
    publishedAt: instant().nullable().public(),
    statusFilter: enumFilter('status', 'status', statuses, o.plural),
    area: {
      public: { what: `published ${o.plural} only`, filter: { status: 'published' } },
      onCreate: (s: Record<string, unknown>) => ({ ...s, slug: s.slug ?? slugify(String(s[o.from])) }),
      unique: ['slug'],
    },
    /** For areas with `published_at`: stamps it when a write publishes. */
    stampPublishedAt: (stored: Record<string, unknown>, input: Record<string, unknown>) => {
      if (input.status === 'published') stored.publishedAt = new Date();
    },
  };
}
