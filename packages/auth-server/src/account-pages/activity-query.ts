/** The Activity page's GET form (activity.ts reads it, activity-views.ts writes it back into the page). */
import { z } from 'zod';
import { AUDIT_EVENT_TYPES } from '../audit/audit-log.js';
import { optionalParam } from './list-parts.js';

const text = optionalParam(
  z
    .string()
    .trim()
    .max(2000)
    .transform((s) => s || undefined),
);

/** The Activity page's GET form; a value that does not read is ignored. */
export const activityQuery = z.object({
  event: optionalParam(z.enum(AUDIT_EVENT_TYPES)),
  app: text,
  account: text,
  before: optionalParam(z.string().max(60)),
});
